package store

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

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

// ParseLookupDetails reads a sisu_lookup event's details. It reads the shape web/lookup.go
// records:
//
//	{"verdict": {"kind": "registered", "match_id": "…", "ours": ["…"]},
//	 "attainments": [{"id": "…", "type": "…"}], "verify_call": {"attainment_id": "…", "attainment_type": "…"}}
//
// (the match's type comes from the attainment listed with its id, or from the verify answer
// that named it; with no match_id a registered verify answer is the match), and the simpler
// shape {"verdict": "<kind>", "match": {"id": "…", "type": "…", "ours": true}}. A match is ours
// when "ours" says so or lists its id. Keys match case-insensitively. Whatever is missing or
// unreadable reads as cannot_tell or no match, never as evidence: a lookup the rules cannot read
// permits nothing.
func ParseLookupDetails(raw []byte) LookupDetails {
	out := LookupDetails{Verdict: schedule.VerdictCannotTell}
	type match struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Ours *bool  `json:"ours"`
	}
	var top struct {
		Verdict     json.RawMessage `json:"verdict"`
		Match       *match          `json:"match"`
		Attainments []match         `json:"attainments"`
		Held        *struct {
			Answer string `json:"answer"`
		} `json:"attainments_call"`
		Verify *struct {
			Answer         string     `json:"answer"`
			Code           string     `json:"code"`
			RetryAfter     *time.Time `json:"retry_after"`
			AttainmentID   string     `json:"attainment_id"`
			AttainmentType string     `json:"attainment_type"`
		} `json:"verify_call"`
	}
	if json.Unmarshal(raw, &top) != nil {
		return out
	}
	// A call recorded without an answer, or with anything but "answered", brought none.
	if top.Held != nil && top.Held.Answer != AnswerAnswered {
		out.Unanswered = append(out.Unanswered, schedule.CallAttainments)
	}
	if top.Verify != nil {
		if top.Verify.Answer != AnswerAnswered {
			out.Unanswered = append(out.Unanswered, schedule.CallVerify)
		}
		if top.Verify.Code == "submissionPending" {
			out.Pending, out.PendingUntil = true, top.Verify.RetryAfter
		}
	}
	if len(top.Verdict) == 0 {
		// A verdict written as the whole object, without the "verdict" key.
		top.Verdict = raw
	}
	var kind string
	var oursIDs []string
	m := top.Match
	if json.Unmarshal(top.Verdict, &kind) != nil {
		var obj struct {
			Kind    string          `json:"kind"`
			Match   *match          `json:"match"`
			MatchID string          `json:"match_id"`
			Ours    json.RawMessage `json:"ours"`
		}
		if json.Unmarshal(top.Verdict, &obj) != nil {
			return out
		}
		kind = obj.Kind
		if m == nil {
			m = obj.Match
		}
		if m == nil && obj.MatchID != "" {
			m = &match{ID: obj.MatchID}
		}
		_ = json.Unmarshal(obj.Ours, &oursIDs)
	}
	if v := schedule.VerdictKind(kind); v.Valid() {
		out.Verdict = v
	}
	if !out.Verdict.FoundMatch() {
		// A match only counts under a verdict that says one was found.
		return out
	}
	if m == nil && top.Verify != nil && top.Verify.AttainmentID != "" {
		// Only Suotar's verify answer shows the submission; the attainment it named is the match.
		m = &match{ID: top.Verify.AttainmentID, Type: top.Verify.AttainmentType}
	}
	if m == nil || m.ID == "" {
		return out
	}
	out.MatchID, out.MatchType = m.ID, m.Type
	if out.MatchType == "" {
		for _, a := range top.Attainments {
			if a.ID == m.ID {
				out.MatchType = a.Type
				break
			}
		}
	}
	if out.MatchType == "" && top.Verify != nil && top.Verify.AttainmentID == m.ID {
		out.MatchType = top.Verify.AttainmentType
	}
	if m.Ours != nil {
		out.MatchOurs = *m.Ours
	} else {
		out.MatchOurs = slices.Contains(oursIDs, m.ID)
	}
	return out
}

// LookupLatest returns the registration's newest Sisu lookup, or nil when it has none.
func (q *Queries) LookupLatest(ctx context.Context, registrationID string) (*LookupSummary, error) {
	if !IsUUID(registrationID) {
		return nil, nil
	}
	type row struct {
		ID      string          `db:"id"`
		At      time.Time       `db:"created_at"`
		Details json.RawMessage `db:"details"`
		Actor   *string         `db:"actor"`
	}
	rows, _ := q.db.Query(ctx, `SELECT e.id::text AS id, e.created_at, e.details, a.name AS actor
FROM credit_registration_events e LEFT JOIN accounts a ON a.id = e.actor_user_id
WHERE e.credit_registration_id = $1 AND e.kind = 'sisu_lookup'
ORDER BY e.created_at DESC, e.id DESC LIMIT 1`, registrationID)
	r, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[row])
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, dbError("LookupLatest", err)
	}
	return &LookupSummary{EventID: r.ID, At: r.At, ActorName: deref(r.Actor), LookupDetails: ParseLookupDetails(r.Details)}, nil
}
