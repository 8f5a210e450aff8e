package store

import (
	"encoding/json"
	"slices"
	"time"

	"regdesk/schedule"
)

// This file reads a registration's Sisu lookups as the hand-action rules need them.

// LookupSummary is a registration's Sisu lookup as the rules read it.
type LookupSummary struct {
	// EventID is the sisu_lookup event's id; a page carries it so an action is refused when a
	// newer lookup has been made since.
	EventID string
	At      time.Time
	// ActorName is who looked; "" when unknown.
	ActorName string
	LookupDetails
}

// ScheduleLookup returns the lookup as schedule reads it; nil for a nil summary.
func (l *LookupSummary) ScheduleLookup() *schedule.LookupFacts {
	if l == nil {
		return nil
	}
	return &schedule.LookupFacts{At: l.At, Verdict: l.Verdict, MatchID: l.MatchID, MatchType: l.MatchType, MatchOurs: l.MatchOurs,
		Unanswered: l.Unanswered, Pending: l.Pending, PendingUntil: l.PendingUntil}
}

// matchID is the lookup's match, "" for none or a nil summary.
func (l *LookupSummary) matchID() string {
	if l == nil {
		return ""
	}
	return l.MatchID
}

// LookupDetails is what a sisu_lookup event's details say, as far as the rules need.
type LookupDetails struct {
	Verdict   schedule.VerdictKind
	MatchID   string
	MatchType string
	MatchOurs bool
	// Unanswered are the calls that brought no usable answer (their "answer" is not
	// "answered"); a lookup with one shows nothing absent.
	Unanswered []schedule.LookupCall
	// Pending is true when the verify answer was submissionPending, PendingUntil its retry_after
	// (nil when Suotar did not say).
	Pending      bool
	PendingUntil *time.Time
}

// Badge is the lookup's badge: its verdict, or pending at Suotar (schedule.BadgeOf).
func (d LookupDetails) Badge() schedule.VerdictBadge { return schedule.BadgeOf(d.Verdict, d.Pending) }

// LookupRecordVersion is the "v" of the lookup record regdesk writes today.
const LookupRecordVersion = 1

// LookupRecord is what a Sisu lookup keeps in its sisu_lookup event's details: what support needs
// to read the lookup again, and nothing personal beyond what the row already holds (no names, no
// e-mails, no person id other than the row's own). The lookup writes it (sisucheck) and both
// the rules (ParseLookupDetails) and the registration page read it, so this type is the one
// definition of the record. Every row written since "v": 1 reads into it; a field added later
// must leave older rows reading as they did.
type LookupRecord struct {
	V                   int        `json:"v"`
	DurationMS          int64      `json:"duration_ms"`
	StudentNumber       string     `json:"student_number"`
	StudentNumberSource string     `json:"student_number_source"`
	CourseCode          string     `json:"course_code"`
	CourseCodeSource    string     `json:"course_code_source"`
	Sent                LookupSent `json:"sent"`
	// AttainmentsCall is the call for the student's attainments on the course. Every lookup
	// makes it; it is a pointer so that a record without it reads as having made no such call,
	// not as one left unanswered.
	AttainmentsCall *LookupCall `json:"attainments_call"`
	// VerifyCall is the call that verifies the submitted attainment; nil when the row has none.
	VerifyCall *LookupCall `json:"verify_call,omitempty"`
	// Person says how the Sisu person on the attainments compares with the row's (LookupPerson…);
	// PersonID is kept only when it is the row's own.
	Person      string             `json:"person"`
	PersonID    string             `json:"person_id,omitempty"`
	Attainments []LookupAttainment `json:"attainments"`
	// Skipped counts the entries Suotar sent that could not be read.
	Skipped int            `json:"skipped,omitempty"`
	Verdict *LookupVerdict `json:"verdict,omitempty"`
	// Error is why the lookup has no verdict, in words.
	Error string `json:"error,omitempty"`
}

// The LookupRecord's Person: how the Sisu person on the attainments compares with the row's.
const (
	LookupPersonSame       = "same_as_row"
	LookupPersonDifferent  = "differs_from_row"
	LookupPersonRowHasNone = "row_has_none"
	LookupPersonNotSeen    = "not_seen"
)

// LookupSent is the frozen payload the verdict compared with.
type LookupSent struct {
	GradeScaleID          string     `json:"grade_scale_id,omitempty"`
	GradeID               string     `json:"grade_id,omitempty"`
	AttainmentDate        string     `json:"attainment_date,omitempty"`
	Credits               *float64   `json:"credits,omitempty"`
	SubmittedAt           *time.Time `json:"submitted_at,omitempty"`
	SubmittedAttainmentID string     `json:"submitted_attainment_id,omitempty"`
}

// LookupCall is one Suotar call of a lookup.
type LookupCall struct {
	Endpoint      string `json:"endpoint"`
	CorrelationID string `json:"correlation_id,omitempty"`
	// Answer is AnswerAnswered, AnswerUnanswered or AnswerRefused; only "answered" counts as an
	// answer.
	Answer      string             `json:"answer"`
	Code        string             `json:"code,omitempty"`
	RequestedAt time.Time          `json:"requested_at"`
	AnsweredAt  *time.Time         `json:"answered_at,omitempty"`
	DurationMS  int64              `json:"duration_ms"`
	Failure     *LookupCallFailure `json:"failure,omitempty"`
	// The verify answer's attainment (registered) and retryAfter (submissionPending).
	AttainmentID   string     `json:"attainment_id,omitempty"`
	AttainmentType string     `json:"attainment_type,omitempty"`
	RetryAfter     *time.Time `json:"retry_after,omitempty"`
}

// LookupCallFailure is a failed call, without Suotar's body, which may quote anything.
type LookupCallFailure struct {
	// Kind is the failure's code (suotar.Kind, or "interrupted", "other"); the page words it in
	// the reader's language from it, with HTTPStatus and LimitMS.
	Kind       string `json:"kind"`
	HTTPStatus int    `json:"http_status,omitempty"`
	// LimitMS is the time limit that ran out, for a timeout of the client's own limit; rows
	// written before it was kept have none.
	LimitMS int64 `json:"limit_ms,omitempty"`
	// Message is the failure in English, as the lookup saw it: what a row holds whose Kind the
	// page cannot word, and what the logs and the command line read.
	Message string `json:"message"`
}

// LookupAttainment is one attainment Sisu holds for the student on the course.
type LookupAttainment struct {
	ID               string   `json:"id"`
	Type             string   `json:"type,omitempty"`
	State            string   `json:"state,omitempty"`
	AttainmentDate   string   `json:"attainment_date,omitempty"`
	RegistrationDate string   `json:"registration_date,omitempty"`
	GradeScaleID     string   `json:"grade_scale_id,omitempty"`
	GradeID          string   `json:"grade_id,omitempty"`
	Credits          *float64 `json:"credits,omitempty"`
}

// LookupVerdict is schedule.Judge's verdict as recorded.
type LookupVerdict struct {
	Kind schedule.VerdictKind `json:"kind"`
	// Say is the verdict's reason as phrases, which the page words in the reader's language.
	// Reason is the English sentence records held before Say was kept: an old record (no Say)
	// shows it as written; regdesk no longer writes it.
	Reason string            `json:"reason,omitempty"`
	Say    []schedule.Phrase `json:"say,omitempty"`
	// MatchID is the attainment judged to be the submission; "" when none.
	MatchID   string           `json:"match_id,omitempty"`
	Matches   []string         `json:"matches,omitempty"`
	Ours      []string         `json:"ours,omitempty"`
	Conflicts []LookupConflict `json:"conflicts,omitempty"`
	// Window is the registration window the attainments were weighed against: the submission's
	// Helsinki and UTC days, from either of which it counts.
	Window *LookupWindow `json:"window,omitempty"`
}

// LookupWindow is a verdict's registration window.
type LookupWindow struct {
	HelsinkiDay string `json:"helsinki_day"`
	UTCDay      string `json:"utc_day"`
}

// LookupConflict is an attainment that looks like the submission but differs from it.
type LookupConflict struct {
	ID          string   `json:"id"`
	Differences []string `json:"differences"`
	// Say is Differences as phrases, in records written since it was kept.
	Say []schedule.Phrase `json:"say,omitempty"`
}

// ReadLookupRecord decodes a sisu_lookup event's details; ok is false for details that are not a
// record (not JSON, or of the wrong types).
func ReadLookupRecord(raw []byte) (rec LookupRecord, ok bool) {
	if json.Unmarshal(raw, &rec) != nil {
		return LookupRecord{}, false
	}
	return rec, true
}

// ParseLookupDetails reads a sisu_lookup event's details as the rules need them. The match is the
// verdict's match_id or, without one, the attainment a registered verify answer named; its type
// comes from the verify answer or from the attainment listed with its id. A match is ours when the
// verdict lists its id in "ours". Keys match case-insensitively. Whatever is missing or
// unreadable reads as cannot_tell or no match, never as evidence: a lookup the rules cannot read
// permits nothing.
func ParseLookupDetails(raw []byte) LookupDetails {
	rec, ok := ReadLookupRecord(raw)
	if !ok {
		return LookupDetails{Verdict: schedule.VerdictCannotTell}
	}
	return rec.Details()
}

// Details returns the record as the rules read it (ParseLookupDetails).
func (rec LookupRecord) Details() LookupDetails {
	out := LookupDetails{Verdict: schedule.VerdictCannotTell}
	// A call recorded without an answer, or with anything but "answered", brought none.
	if c := rec.AttainmentsCall; c != nil && c.Answer != AnswerAnswered {
		out.Unanswered = append(out.Unanswered, schedule.CallAttainments)
	}
	verify := rec.VerifyCall
	if verify != nil {
		if verify.Answer != AnswerAnswered {
			out.Unanswered = append(out.Unanswered, schedule.CallVerify)
		}
		if verify.Code == "submissionPending" {
			out.Pending, out.PendingUntil = true, verify.RetryAfter
		}
	}
	if rec.Verdict == nil {
		return out
	}
	if v := rec.Verdict.Kind; v.Valid() {
		out.Verdict = v
	}
	if !out.Verdict.FoundMatch() {
		// A match only counts under a verdict that says one was found.
		return out
	}
	id, typ := rec.Verdict.MatchID, ""
	if id == "" && verify != nil {
		// Only Suotar's verify answer shows the submission; the attainment it named is the match.
		id, typ = verify.AttainmentID, verify.AttainmentType
	}
	if id == "" {
		return out
	}
	if typ == "" {
		if i := slices.IndexFunc(rec.Attainments, func(a LookupAttainment) bool { return a.ID == id }); i >= 0 {
			typ = rec.Attainments[i].Type
		}
	}
	if typ == "" && verify != nil && verify.AttainmentID == id {
		typ = verify.AttainmentType
	}
	out.MatchID, out.MatchType, out.MatchOurs = id, typ, slices.Contains(rec.Verdict.Ours, id)
	return out
}
