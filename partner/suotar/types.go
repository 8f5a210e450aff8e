package suotar

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"regdesk/schedule"
)

// Date is a calendar day as Suotar and Sisu use it, with no time of day and no zone. The zero Date
// means "not given".
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate reads the date forms Suotar is known to send: "2026-05-22"; an instant such as
// "2026-05-22T00:00:00.000Z" (Sisu's UTC midnight), read as the Helsinki day it falls on, which
// is also right for Helsinki midnight written in UTC ("2025-12-17T22:00:00Z" is 2025-12-18); and a
// zoneless local date-time, whose date part is taken as written.
func ParseDate(s string) (Date, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return DateOf(t), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return DateOf(t.In(schedule.Helsinki())), nil
	}
	if t, err := parseZoneless(s); err == nil {
		return DateOf(t), nil
	}
	return Date{}, fmt.Errorf("parse date %q: not YYYY-MM-DD or an ISO-8601 date-time", s)
}

// DateOf returns the calendar day of t in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// IsZero reports whether d is the zero Date ("not given").
func (d Date) IsZero() bool { return d == Date{} }

// String returns "YYYY-MM-DD", or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

// Before reports whether d is an earlier day than o.
func (d Date) Before(o Date) bool {
	if d.Year != o.Year {
		return d.Year < o.Year
	}
	if d.Month != o.Month {
		return d.Month < o.Month
	}
	return d.Day < o.Day
}

// MarshalJSON writes "YYYY-MM-DD", or null for the zero Date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + d.String() + `"`), nil
}

// UnmarshalJSON reads null, "" or any form ParseDate reads.
func (d *Date) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("date: %w", err)
	}
	if s == nil || *s == "" {
		*d = Date{}
		return nil
	}
	parsed, err := ParseDate(*s)
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// Period is a Sisu LocalDateRange: Start is inclusive, End is exclusive, and a zero end is open.
type Period struct {
	Start Date `json:"startDate"`
	End   Date `json:"endDate"`
}

// Contains reports whether day d lies in the period, honouring Sisu's exclusive end.
func (p Period) Contains(d Date) bool {
	return (p.Start.IsZero() || !d.Before(p.Start)) && (p.End.IsZero() || d.Before(p.End))
}

// LocalizedText is a Sisu name in Finnish, Swedish and English; any of them may be empty.
type LocalizedText struct {
	FI string `json:"fi,omitempty"`
	SV string `json:"sv,omitempty"`
	EN string `json:"en,omitempty"`
}

// CreditRange is a course unit's credit range; either end may be missing.
type CreditRange struct {
	Min *float64 `json:"min"`
	Max *float64 `json:"max"`
}

// Enrolment is one ENROLLED enrolment as resolve-enrolments reports it. Suotar may leave out
// every field but ID, so each may be zero.
type Enrolment struct {
	ID                        string        `json:"id"`
	State                     string        `json:"state,omitempty"`
	Kind                      string        `json:"kind,omitempty"`
	CourseUnitID              string        `json:"courseUnitId,omitempty"`
	AssessmentItemID          string        `json:"assessmentItemId,omitempty"`
	CourseUnitRealisationID   string        `json:"courseUnitRealisationId,omitempty"`
	CourseUnitRealisationName LocalizedText `json:"courseUnitRealisationName"`
	ActivityPeriod            *Period       `json:"activityPeriod,omitempty"`
	GradeScaleID              string        `json:"gradeScaleId,omitempty"`
	Credits                   *CreditRange  `json:"credits,omitempty"`
	StudyRightID              string        `json:"studyRightId,omitempty"`
	// StudyRightValidityPeriod is nil when Suotar could not resolve the study right.
	StudyRightValidityPeriod *Period  `json:"studyRightValidityPeriod,omitempty"`
	EnrolmentDateTime        DateTime `json:"enrolmentDateTime"`
}

// UnmarshalJSON insists only on a non-empty id: an enrolment without one cannot be named, so it
// is dropped; any other field may be missing.
func (e *Enrolment) UnmarshalJSON(b []byte) error {
	type plain Enrolment
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("enrolment: %w", err)
	}
	if p.ID == "" {
		return fmt.Errorf("enrolment: no id")
	}
	*e = Enrolment(p)
	return nil
}

// Attainment is an attainment Sisu holds (as Suotar's importer copy shows it): either the
// CourseUnitAttainment that counts, or the AssessmentItemAttainment it is built from.
type Attainment struct {
	ID                      string `json:"id"`
	Type                    string `json:"type,omitempty"`
	State                   string `json:"state,omitempty"`
	PersonID                string `json:"personId,omitempty"`
	CourseUnitID            string `json:"courseUnitId,omitempty"`
	AssessmentItemID        string `json:"assessmentItemId,omitempty"`
	CourseUnitRealisationID string `json:"courseUnitRealisationId,omitempty"`
	AttainmentDate          Date   `json:"attainmentDate"`
	RegistrationDate        Date   `json:"registrationDate"`
	GradeScaleID            string `json:"gradeScaleId,omitempty"`
	// GradeID is the grade's localId. Sisu stores it as an integer and Suotar forwards it as it
	// comes, so a JSON number is read as its digits.
	GradeID string   `json:"gradeId,omitempty"`
	Passed  *bool    `json:"passed,omitempty"`
	Credits *float64 `json:"credits,omitempty"`
}

// Attainment types as Sisu spells them.
const (
	TypeCourseUnitAttainment     = "CourseUnitAttainment"
	TypeAssessmentItemAttainment = "AssessmentItemAttainment"
)

// UnmarshalJSON reads gradeId as a string or a number.
func (a *Attainment) UnmarshalJSON(b []byte) error {
	type plain Attainment
	var w struct {
		plain
		GradeID lenientID `json:"gradeId"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("attainment: %w", err)
	}
	*a = Attainment(w.plain)
	a.GradeID = string(w.GradeID)
	return nil
}

// AttainmentRef names an attainment by id and type, as verify and Suotar's results do.
type AttainmentRef struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// Person is a Sisu person as resolve-persons reports one; the names may be empty.
type Person struct {
	StudentNumber string `json:"studentNumber"`
	PersonID      string `json:"personId"`
	FirstNames    string `json:"firstNames,omitempty"`
	LastName      string `json:"lastName,omitempty"`
}

// DateTime is an instant Suotar sends. A zoneless local date-time, which some importer rows carry,
// is read as Helsinki wall-clock time. The zero DateTime means "not given".
type DateTime struct{ time.Time }

// MarshalJSON writes RFC 3339, or null when not given.
func (t DateTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.Time.UTC().Format(time.RFC3339Nano))
}

// UnmarshalJSON reads null, "", RFC 3339 or a zoneless local date-time.
func (t *DateTime) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("date-time: %w", err)
	}
	if s == nil || *s == "" {
		*t = DateTime{}
		return nil
	}
	parsed, err := parseInstant(*s)
	if err != nil {
		return err
	}
	*t = DateTime{parsed}
	return nil
}

func parseInstant(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := parseZoneless(s); err == nil {
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), schedule.Helsinki()), nil
	}
	return time.Time{}, fmt.Errorf("parse date-time %q: not ISO 8601", s)
}

// parseZoneless reads "2026-09-02T08:15:00" with optional fractional seconds, or with a space
// for the T, returning the wall-clock fields in UTC.
func parseZoneless(s string) (time.Time, error) {
	s = strings.Replace(s, " ", "T", 1)
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("parse %q: not a zoneless date-time", s)
}

// lenientID reads a JSON string, or a JSON number as its canonical digits ("4" for 4 or 4.0).
type lenientID string

// UnmarshalJSON reads a string, a number or null.
func (l *lenientID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*l = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("id: %w", err)
		}
		*l = lenientID(s)
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("id: %s is neither a string nor a number", b)
		}
		if f, err := n.Float64(); err == nil && f == float64(int64(f)) {
			*l = lenientID(strconv.FormatInt(int64(f), 10))
		} else {
			*l = lenientID(n.String())
		}
	}
	return nil
}
