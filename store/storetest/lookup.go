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
		Verdict:         &store.LookupVerdict{Kind: kind, Reason: kind.Explanation()},
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
