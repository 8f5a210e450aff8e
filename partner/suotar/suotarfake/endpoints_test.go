package suotarfake_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"regdesk/partner/suotar/suotarfake"
)

func TestResolveEnrolments(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name, studentNumber, courseCode, code string
		enrolments, existing                  int
	}{
		{name: "Found", studentNumber: aino, courseCode: basics, code: "enrolmentFound", enrolments: 1, existing: 1},
		{name: "FoundWithoutAttainments", studentNumber: aino, courseCode: passFail, code: "enrolmentFound", enrolments: 1},
		{name: "NoPerson", studentNumber: nobody, courseCode: basics, code: "personNotFound"},
		{name: "NoCourseUnit", studentNumber: aino, courseCode: onlyListed, code: "courseCodeNotFound"},
		{name: "OnlyARejectedEnrolmentStillListsAttainments", studentNumber: bertil, courseCode: basics, code: "enrolmentNotFound", existing: 1},
		{name: "NoEnrolmentNothingToList", studentNumber: carla, courseCode: passFail, code: "enrolmentNotFound"},
	}
	b := setup(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			got := b.one(t, suotarfake.PathResolveEnrolments, map[string]any{"studentNumber": tc.studentNumber, "courseCode": tc.courseCode})
			wantCode(t, got, tc.code)
			enrolments, _ := got.Result["enrolments"].([]any)
			existing, _ := got.Result["existingAttainments"].([]any)
			if len(enrolments) != tc.enrolments || len(existing) != tc.existing {
				t.Errorf("%d enrolments and %d attainments, want %d and %d", len(enrolments), len(existing), tc.enrolments, tc.existing)
			}
			if tc.enrolments == 0 && tc.existing == 0 && got.Result != nil {
				t.Errorf("result = %v, want none when there is nothing to list", got.Result)
			}
		})
	}

	got := b.one(t, suotarfake.PathResolveEnrolments, map[string]any{"studentNumber": aino, "courseCode": basics})
	e := got.Result["enrolments"].([]any)[0].(map[string]any)
	for field, want := range map[string]string{
		"id": ainoBasics, "state": "ENROLLED", "kind": "degree", "courseUnitId": "hy-CU-137765567-2020-08-01",
		"assessmentItemId": "otm-9b1e2c3d-4f50-4a61-8b72-93a4b5c6d7e8", "courseUnitRealisationId": basicsRealisation,
		"gradeScaleId": "sis-0-5", "studyRightId": "otm-0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f", "enrolmentDateTime": "2026-09-02T08:15:00Z",
	} {
		if got := str(e, field); got != want {
			t.Errorf("enrolment %s = %q, want %q", field, got, want)
		}
	}
	if str(e, "activityPeriod", "startDate") != "2026-09-01" || str(e, "studyRightValidityPeriod", "endDate") != "2030-08-01" ||
		str(e, "courseUnitRealisationName", "fi") != "Ohjelmoinnin perusteet, syksy 2026" {
		t.Errorf("enrolment periods or name = %v", e)
	}
	if c, _ := e["credits"].(map[string]any); c["min"] != 5.0 || c["max"] != 5.0 {
		t.Errorf("enrolment credits = %v, want the course unit's 5..5", e["credits"])
	}
	a := got.Result["existingAttainments"].([]any)[0].(map[string]any)
	if str(a, "id") != ainoEarlierBasics || str(a, "gradeId") != "3" || a["passed"] != true || a["assessmentItemId"] != nil || str(a, "attainmentDate") != "2025-05-02" {
		t.Errorf("existing attainment = %v", a)
	}

	carlaAnswer := b.one(t, suotarfake.PathResolveEnrolments, map[string]any{"studentNumber": carla, "courseCode": basics})
	if kind := str(carlaAnswer.Result["enrolments"].([]any)[0].(map[string]any), "kind"); kind != "openUniversity" {
		t.Errorf("kind of an enrolment on an avoin study right = %q, want openUniversity", kind)
	}
}

func TestQuirksLookLikeRawSisu(t *testing.T) {
	t.Parallel()

	b := setup(t, suotarfake.WithQuirks())
	got := b.one(t, suotarfake.PathResolveEnrolments, map[string]any{"studentNumber": aino, "courseCode": basics})
	a := got.Result["existingAttainments"].([]any)[0].(map[string]any)
	if a["gradeId"] != 3.0 || str(a, "attainmentDate") != "2025-05-02T00:00:00.000Z" || a["credits"] != 5.0 {
		t.Errorf("quirky attainment = %v, want a numeric gradeId, instant dates and credits", a)
	}
	e := got.Result["enrolments"].([]any)[0].(map[string]any)
	if str(e, "enrolmentDateTime") != "2026-09-02T11:15:00" {
		t.Errorf("quirky enrolmentDateTime = %q, want Helsinki wall time without a zone", str(e, "enrolmentDateTime"))
	}
}

func TestImportCodes(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name    string
		item    map[string]any
		code    string
		message string
	}{
		{name: "Sent", item: ainoImport(), code: "sent"},
		{name: "PassFailScaleOtherSpelling", item: importItem(aino, passFail, "", "2026-11-30", "sis-hyv-hyl", "1", 2), code: "studyRightNotValid"},
		{name: "NotOnAllowList", item: importItem(aino, notAllowed, "", "2026-11-30", "sis-0-5", "4", 5), code: "courseNotAllowed", message: "TKT21018 cannot be registered through this API yet."},
		{name: "AllowedButNotInSisu", item: importItem(aino, onlyListed, "e", "2026-11-30", "sis-0-5", "4", 5), code: "enrolmentNotFound"},
		{name: "NoPerson", item: importItem(nobody, basics, ainoBasics, "2026-11-30", "sis-0-5", "4", 5), code: "personNotFound"},
		{name: "SomeoneElsesEnrolment", item: importItem(bertil, basics, ainoBasics, "2026-11-30", "sis-0-5", "4", 5), code: "enrolmentNotFound"},
		{name: "NoCreditRange", item: importItem(aino, noCredits, "", "2026-11-30", "sis-0-5", "4", 5), code: "invalidCredits", message: "Course TKT30000 has no credit range."},
		{name: "CreditsOutOfRange", item: importItem(aino, basics, ainoBasics, "2026-11-30", "sis-0-5", "4", 4), code: "invalidCredits", message: "Credits must be between 5 and 5 for course TKT10002."},
		{name: "ScaleMismatch", item: importItem(aino, basics, ainoBasics, "2026-11-30", "sis-hyl-hyv", "1", 5), code: "gradeScaleMismatch", message: "Grade scale sis-hyl-hyv was sent, but the enrolment is graded on sis-0-5."},
		{name: "UnknownScale", item: importItem(aino, basics, ainoBasics, "2026-11-30", "sis-7-portainen", "4", 5), code: "gradeScaleMismatch"},
		{name: "GradeNotOnScale", item: importItem(aino, basics, ainoBasics, "2026-11-30", "sis-0-5", "6", 5), code: "invalidGradeForGradeScale"},
		{name: "PassFailGradeNotOnScale", item: importItem(aino, passFail, "", "2026-11-30", "sis-hyl-hyv", "2", 1), code: "invalidGradeForGradeScale"},
		{name: "Identical", item: importItem(aino, basics, ainoBasics, "2025-05-02", "sis-0-5", "3", 5), code: "duplicateAttainment"},
		{name: "LowerGrade", item: importItem(aino, basics, ainoBasics, "2026-11-30", "sis-0-5", "2", 5), code: "notImprovedAttainment"},
		{name: "SameGradeLater", item: importItem(aino, basics, ainoBasics, "2026-11-30", "sis-0-5", "3", 5), code: "sent"},
		{name: "FailAfterPass", item: importItem(aino, basics, ainoBasics, "2026-11-30", "sis-0-5", "0", 5), code: "notImprovedAttainment"},
		{name: "NoStudyRight", item: importItem(aino, passFail, "", "2026-11-30", "sis-hyl-hyv", "1", 2), code: "studyRightNotValid"},
		{name: "NoTeachers", item: importItem(carla, basics, carlaBasics, "2026-11-30", "sis-0-5", "4", 5), code: "sisuValidationFailed",
			message: "Sisu refused the attainment: acceptorPersons: the realisation has no teacher to accept the attainment."},
		{name: "FutureDate", item: importItem(aino, basics, ainoBasics, "2026-12-02", "sis-0-5", "4", 5), code: "sisuValidationFailed"},
		{name: "BeforeActivityPeriod", item: importItem(aino, basics, ainoBasics, "2026-08-01", "sis-0-5", "4", 5), code: "sisuValidationFailed"},
		{name: "UnknownLanguage", item: func() map[string]any { it := ainoImport(); it["attainmentLanguage"] = "de"; return it }(), code: "sisuValidationFailed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()

			b := setup(t)
			if tc.item["enrolmentId"] == "" {
				tc.item["enrolmentId"] = enrolmentOf(t, b, tc.item["studentNumber"].(string), tc.item["courseCode"].(string))
			}
			got := b.one(t, suotarfake.PathImportAttainments, tc.item)
			wantCode(t, got, tc.code)
			if tc.message != "" && (got.Error == nil || got.Error.Message != tc.message) {
				t.Errorf("message = %+v, want %q", got.Error, tc.message)
			}
			subs := b.fake.World().Submissions
			switch tc.code {
			case "sent":
				id := str(got.Result, "submittedAttainmentId")
				if !strings.HasPrefix(id, "hy-kur-") || str(got.Result, "submittedAttainmentType") != "AssessmentItemAttainment" {
					t.Errorf("sent result = %v", got.Result)
				}
				if len(subs) != 1 || subs[0].ID != id || subs[0].SendState != suotarfake.SendAccepted {
					t.Errorf("submissions = %+v, want one ACCEPTED %s", subs, id)
				}
			case "sisuValidationFailed":
				if len(subs) != 1 || subs[0].SendState != suotarfake.SendRejected {
					t.Errorf("submissions = %+v, want one REJECTED", subs)
				}
			case "duplicateAttainment", "notImprovedAttainment":
				key := map[string]string{"duplicateAttainment": "attainment", "notImprovedAttainment": "previousAttainment"}[tc.code]
				if str(got.Result, key, "id") != ainoEarlierBasics || str(got.Result, key, "gradeId") != "3" || str(got.Result, key, "registrationDate") != "2025-05-04" {
					t.Errorf("result = %v, want Aino's earlier attainment", got.Result)
				}
				fallthrough
			default:
				if len(subs) != 0 {
					t.Errorf("submissions = %+v, want none", subs)
				}
			}
		})
	}
}

// enrolmentOf returns the student's enrolment id on the code, as the fixture derived it.
func enrolmentOf(t *testing.T, b *bundle, studentNumber, code string) string {
	t.Helper()
	w := b.fake.World()
	p, _ := w.Person(studentNumber)
	cu, _ := w.CourseUnit(code)
	for _, e := range w.Enrolments {
		for _, r := range cu.Realisations {
			if e.PersonID == p.PersonID && e.CourseUnitRealisationID == r.ID {
				return e.ID
			}
		}
	}
	t.Fatalf("no enrolment of %s on %s", studentNumber, code)
	return ""
}

func TestImportInSisusDayGapIsRefused(t *testing.T) {
	t.Parallel()

	// 01:30 in Helsinki on 2 December is still 1 December in UTC, Sisu's day.
	b := setup(t, suotarfake.WithClock(suotarfake.NewClock(time.Date(2026, 12, 1, 23, 30, 0, 0, time.UTC), 0)))
	item := importItem(aino, basics, ainoBasics, "2026-12-02", "sis-0-5", "4", 5)
	got := b.one(t, suotarfake.PathImportAttainments, item)
	wantCode(t, got, "sisuValidationFailed")
	if !strings.Contains(got.Error.Message, "2026-12-02 is in the future") {
		t.Errorf("message = %q, want the future date named", got.Error.Message)
	}
	b.advance(t, time.Hour) // 00:30 UTC: Sisu's day has turned too
	wantCode(t, b.one(t, suotarfake.PathImportAttainments, item), "sent")
}

func TestImportMovesTheDateIntoTheStudyRight(t *testing.T) {
	t.Parallel()

	w := fixtureWorld()
	w.Enrolments[0].StudyRightValidityPeriod = &suotarfake.Period{StartDate: "2024-08-01", EndDate: "2026-10-01"}
	b := setup(t, suotarfake.WithWorld(w))
	got := b.one(t, suotarfake.PathImportAttainments, ainoImport())
	wantCode(t, got, "sent")
	id := str(got.Result, "submittedAttainmentId")
	for _, a := range b.fake.World().Attainments {
		if a.ID == id {
			if a.AttainmentDate != "2026-09-30" {
				t.Errorf("attainment date in Sisu = %s, want 2026-09-30, the day before the study right's exclusive end", a.AttainmentDate)
			}
			return
		}
	}
	t.Fatalf("no attainment %s in Sisu", id)
}

func TestListByCourseAndValidate(t *testing.T) {
	t.Parallel()

	b := setup(t)
	got := b.batch(t, suotarfake.PathListByCourse,
		map[string]any{"courseCode": basics}, map[string]any{"courseCode": onlyListed}, map[string]any{"courseCode": noCredits})
	wantCode(t, got[0], "enrolmentsListed")
	people, _ := got[0].Result["people"].([]any)
	if len(people) != 2 {
		t.Fatalf("people on %s = %v, want Aino and Carla (Bertil's enrolment is not ENROLLED)", basics, people)
	}
	first := people[0].(map[string]any)
	if str(first, "studentNumber") != aino || str(first, "primaryEmail") != "aino.virtanen@helsinki.example" ||
		first["secondaryEmail"] != nil || str(first, "enrolment", "id") != ainoBasics {
		t.Errorf("first person = %v", first)
	}
	wantCode(t, got[1], "courseCodeNotFound")
	wantCode(t, got[2], "enrolmentsListed")

	// Two months and a day after the autumn realisation ended, only the open-ended one is left.
	b.advance(t, 83*24*time.Hour)
	later := b.one(t, suotarfake.PathListByCourse, map[string]any{"courseCode": basics})
	if people, _ := later.Result["people"].([]any); len(people) != 1 {
		t.Errorf("people after the cutoff = %v, want only Carla", people)
	}

	codes := b.batch(t, suotarfake.PathValidateCourseCodes, map[string]any{"courseCode": basics}, map[string]any{"courseCode": notAllowed})
	wantCode(t, codes[0], "courseAllowed")
	if str(codes[0].Result, "name") != "Ohjelmoinnin perusteet" || str(codes[0].Result, "courseCode") != basics {
		t.Errorf("courseAllowed result = %v", codes[0].Result)
	}
	wantCode(t, codes[1], "courseNotAllowed")
}

func TestRequestLevelFaultsWriteOrNotAsSuotarWould(t *testing.T) {
	t.Parallel()

	tests := []struct {
		effect      suotarfake.FaultEffect
		status      int
		submissions int
	}{
		{effect: suotarfake.FaultUnavailable, status: http.StatusServiceUnavailable, submissions: 0},
		{effect: suotarfake.FaultInternalError, status: http.StatusInternalServerError, submissions: 1},
		{effect: suotarfake.FaultBadGateway, status: http.StatusBadGateway, submissions: 1},
	}
	for _, tc := range tests {
		t.Run(string(tc.effect), func(t *testing.T) {
			t.Parallel()

			b := setup(t, suotarfake.WithFaults(suotarfake.Fault{Effect: tc.effect, Endpoint: suotarfake.PathImportAttainments, Times: 1}))
			status, body := b.do(t, "POST", "/api/"+suotarfake.PathImportAttainments, []map[string]any{withID(ainoImport())})
			if status != tc.status {
				t.Fatalf("= %d %s, want %d", status, body, tc.status)
			}
			if n := len(b.fake.World().Submissions); n != tc.submissions {
				t.Errorf("%d submissions written, want %d", n, tc.submissions)
			}
			wantCode(t, b.one(t, suotarfake.PathResolvePersons, map[string]any{"studentNumber": aino}), "personFound")
		})
	}
}

func withID(it map[string]any) map[string]any {
	it["requestItemId"] = "only"
	return it
}
