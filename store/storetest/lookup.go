package storetest

import (
	"encoding/json"

	"regdesk/schedule"
	"regdesk/store"
)

// LookupMatch is the attainment a lookup fixture's verdict matched.
type LookupMatch struct {
	ID   string
	Type string
	// Ours puts the attainment among those the submission created.
	Ours bool
}

// LookupDetails returns sisu_lookup event details in the shape regdesk records (store.LookupRecord):
// the attainments call answered, Sisu holding the matched attainment (none for a nil match), and
// the verdict kind. Tests that need another record marshal a store.LookupRecord themselves.
func LookupDetails(kind schedule.VerdictKind, match *LookupMatch) string {
	rec := store.LookupRecord{
		V:               store.LookupRecordVersion,
		AttainmentsCall: &store.LookupCall{Endpoint: store.EndpointResolveEnrolments, Answer: store.AnswerAnswered},
		Person:          store.LookupPersonNotSeen,
		Verdict:         &store.LookupVerdict{Kind: kind},
	}
	if match != nil {
		rec.Attainments = []store.LookupAttainment{{ID: match.ID, Type: match.Type}}
		rec.Verdict.MatchID = match.ID
		rec.Verdict.Matches = []string{match.ID}
		if match.Ours {
			rec.Verdict.Ours = []string{match.ID}
		}
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		panic(err) // a LookupRecord always marshals
	}
	return string(raw)
}

// LookupRecordedRegistered and LookupRecordedPendingUnanswered are sisu_lookup details written the
// way regdesk wrote them before the record had one Go type (web/lookup.go's lookupRecord, "v": 1,
// with each call's answer, code and retry_after and the verdict's window), every field filled:
// rows like them are in databases, and tests check they keep reading the same. The first found the
// submission registered (course unit attainment hy-cu-1, ours); the second has its attainments call
// unanswered and Suotar holding the submission pending until 2026-12-01T09:00:00Z.
const (
	LookupRecordedRegistered = `{"v": 1, "duration_ms": 412, "student_number": "014979622", "student_number_source": "frozen",
  "course_code": "TKT10002", "course_code_source": "frozen",
  "sent": {"grade_scale_id": "sis-0-5", "grade_id": "4", "attainment_date": "2026-11-20", "credits": 5,
    "submitted_at": "2026-11-27T09:00:00Z", "submitted_attainment_id": "hy-kur-1"},
  "attainments_call": {"endpoint": "resolve_enrolments", "correlation_id": "c-1", "answer": "answered", "code": "enrolmentFound",
    "requested_at": "2026-11-30T09:59:59.5Z", "answered_at": "2026-11-30T09:59:59.9Z", "duration_ms": 400},
  "verify_call": {"endpoint": "verify_attainments", "correlation_id": "c-2", "answer": "answered", "code": "registered",
    "requested_at": "2026-11-30T09:59:59.5Z", "answered_at": "2026-11-30T09:59:59.88Z", "duration_ms": 380,
    "attainment_id": "hy-kur-1", "attainment_type": "AssessmentItemAttainment"},
  "person": "same_as_row", "person_id": "hy-hlo-1",
  "attainments": [
    {"id": "hy-kur-1", "type": "AssessmentItemAttainment", "state": "ATTAINED", "attainment_date": "2026-11-20",
      "registration_date": "2026-11-27", "grade_scale_id": "sis-0-5", "grade_id": "4", "credits": 5},
    {"id": "hy-cu-1", "type": "CourseUnitAttainment", "state": "ATTAINED", "attainment_date": "2026-11-20",
      "registration_date": "2026-11-27", "grade_scale_id": "sis-0-5", "grade_id": "4", "credits": 5}],
  "verdict": {"kind": "registered", "reason": "Sisu holds the course unit attainment this submission created.",
    "match_id": "hy-cu-1", "matches": ["hy-cu-1"], "ours": ["hy-kur-1", "hy-cu-1"],
    "window": {"helsinki_day": "2026-11-27", "utc_day": "2026-11-27"}}}`
	LookupRecordedPendingUnanswered = `{"v": 1, "duration_ms": 50012, "student_number": "014979622", "student_number_source": "linked",
  "course_code": "TKT10002", "course_code_source": "module",
  "sent": {"submitted_at": "2026-11-30T08:00:00Z", "submitted_attainment_id": "hy-kur-2"},
  "attainments_call": {"endpoint": "resolve_enrolments", "answer": "unanswered", "requested_at": "2026-11-30T09:59:10Z",
    "duration_ms": 50000, "failure": {"kind": "timeout", "message": "Suotar did not answer in time; try again."}},
  "verify_call": {"endpoint": "verify_attainments", "answer": "answered", "code": "submissionPending",
    "requested_at": "2026-11-30T09:59:10Z", "answered_at": "2026-11-30T09:59:10.3Z", "duration_ms": 300,
    "retry_after": "2026-12-01T09:00:00Z"},
  "person": "not_seen", "attainments": null,
  "verdict": {"kind": "cannot_tell", "reason": "Suotar gave no list of the student's attainments."}}`
)
