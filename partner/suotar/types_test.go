package suotar_test

import (
	"encoding/json"
	"testing"
	"time"

	"regdesk/partner/suotar"
)

func TestParseDate(t *testing.T) {
	t.Parallel()

	tests := []struct {
		in, want string
		bad      bool
	}{
		{in: "2026-05-22", want: "2026-05-22"},
		{in: "2026-05-22T00:00:00.000Z", want: "2026-05-22"},  // Sisu's UTC midnight
		{in: "2025-12-17T22:00:00.000Z", want: "2025-12-18"},  // Helsinki midnight (winter) in UTC
		{in: "2026-06-30T21:00:00Z", want: "2026-07-01"},      // Helsinki midnight (summer) in UTC
		{in: "2026-07-01T21:30:00Z", want: "2026-07-02"},      // a late UTC evening is the next Helsinki day
		{in: "2026-05-22T23:30:00+03:00", want: "2026-05-22"}, // an offset instant
		{in: "2026-05-22T23:30:00", want: "2026-05-22"},       // zoneless: the date as written
		{in: "2026-05-22 08:15:00.123", want: "2026-05-22"},   // zoneless with a space
		{in: "22.5.2026", bad: true},
		{in: "2026-02-30", bad: true},
		{in: "", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()

			got, err := suotar.ParseDate(tc.in)
			if tc.bad {
				if err == nil {
					t.Errorf("ParseDate(%q) = %s, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got.String() != tc.want {
				t.Errorf("ParseDate(%q) = %s, %v; want %s", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestAttainmentReadsLeniently(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, json, gradeID, date string
		bad                       bool
	}{
		{name: "StringGrade", json: `{"id":"a","gradeId":"4","attainmentDate":"2026-05-22"}`, gradeID: "4", date: "2026-05-22"},
		{name: "NumberGrade", json: `{"id":"a","gradeId":4,"attainmentDate":"2026-05-22T00:00:00.000Z"}`, gradeID: "4", date: "2026-05-22"},
		{name: "FloatGrade", json: `{"id":"a","gradeId":4.0}`, gradeID: "4"},
		{name: "NullsEverywhere", json: `{"id":"a","gradeId":null,"attainmentDate":null,"assessmentItemId":null,"passed":null}`},
		{name: "ObjectGrade", json: `{"id":"a","gradeId":{"localId":"4"}}`, bad: true},
		{name: "UnreadableDate", json: `{"id":"a","attainmentDate":"yesterday"}`, bad: true},
		{name: "CreditsAsString", json: `{"id":"a","credits":"5"}`, bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			var a suotar.Attainment
			err := json.Unmarshal([]byte(tc.json), &a)
			if tc.bad {
				if err == nil {
					t.Errorf("read %s as %+v, want an error", tc.json, a)
				}
				return
			}
			if err != nil || a.GradeID != tc.gradeID || a.AttainmentDate.String() != tc.date {
				t.Errorf("read %s as %+v, %v; want gradeId %q, date %q", tc.json, a, err, tc.gradeID, tc.date)
			}
		})
	}
}

func TestEnrolmentNeedsOnlyAnID(t *testing.T) {
	t.Parallel()

	var e suotar.Enrolment
	if err := json.Unmarshal([]byte(`{"id":"otm-e","enrolmentDateTime":"2026-09-02T11:15:00"}`), &e); err != nil {
		t.Fatalf("minimal enrolment: %v", err)
	}
	if want := time.Date(2026, 9, 2, 8, 15, 0, 0, time.UTC); !e.EnrolmentDateTime.Equal(want) {
		t.Errorf("zoneless enrolmentDateTime = %s, want %s (Helsinki wall time)", e.EnrolmentDateTime.UTC(), want)
	}
	if e.ActivityPeriod != nil || e.Credits != nil || e.StudyRightValidityPeriod != nil {
		t.Errorf("missing fields = %+v, want nil", e)
	}
	if err := json.Unmarshal([]byte(`{"state":"ENROLLED"}`), &e); err == nil {
		t.Error("an enrolment without an id was read")
	}
}

func TestPeriodEndIsExclusive(t *testing.T) {
	t.Parallel()

	day := func(s string) suotar.Date { d, _ := suotar.ParseDate(s); return d }
	p := suotar.Period{Start: day("2024-08-01"), End: day("2030-08-01")}
	tests := []struct {
		date string
		want bool
	}{{"2024-07-31", false}, {"2024-08-01", true}, {"2030-07-31", true}, {"2030-08-01", false}}
	for _, tc := range tests {
		if got := p.Contains(day(tc.date)); got != tc.want {
			t.Errorf("Contains(%s) = %v, want %v", tc.date, got, tc.want)
		}
	}
	if !(suotar.Period{}).Contains(day("1999-01-01")) {
		t.Error("an open period does not contain a day")
	}
}

func TestParseCode(t *testing.T) {
	t.Parallel()

	if got := suotar.ParseCode("sisuTimeout"); got != suotar.CodeSisuTimeout || !got.Known() {
		t.Errorf("ParseCode(sisuTimeout) = %s", got)
	}
	for _, raw := range []string{"someFutureCode", "", "SENT"} {
		if got := suotar.ParseCode(raw); got != suotar.CodeUnknown {
			t.Errorf("ParseCode(%q) = %s, want unknown", raw, got)
		}
	}
}
