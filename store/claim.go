package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// This file is claims: "I'm on it". A claim names who is working a row and
// since when. It warns others and never blocks them: no action checks it. A claim whose last touch
// is older than the lapse no longer counts; readers judge that at read time (Claim.ActiveAt), so
// nothing sweeps claims away. Claiming and releasing are audited in the same transaction, and a
// hand action that settles a row ends its claim in the action's transaction (endClaim).

// DefaultClaimLapse is how long a claim nobody touches keeps counting: half a working day.
const DefaultClaimLapse = 4 * time.Hour

// ClaimReasonMaxLength is the longest note a person may give when claiming or releasing.
const ClaimReasonMaxLength = 500

// ClaimColumns are a row's claim as lists and pages read it beside the row; all nil when nobody
// has ever claimed it.
type ClaimColumns struct {
	ClaimAccountID   *string    `db:"claim_account_id"`
	ClaimAccountName *string    `db:"claim_account_name"`
	ClaimedAt        *time.Time `db:"claimed_at"`
	ClaimTouchedAt   *time.Time `db:"claim_touched_at"`
}

// claimColumns selects ClaimColumns through claimJoin.
const claimColumns = `cl.account_id::text AS claim_account_id, cla.name AS claim_account_name,
  cl.claimed_at, cl.touched_at AS claim_touched_at`

// claimJoin joins a row's claim (cl) and its claimer (cla) to "cr"; a query that selects neither
// loses the join to the planner, since both sides are unique.
const claimJoin = `
  LEFT JOIN claims cl ON cl.credit_registration_id = cr.id
  LEFT JOIN accounts cla ON cla.id = cl.account_id`

// Claim is someone being on a row.
type Claim struct {
	AccountID   string
	AccountName string
	// ClaimedAt is when they took it; TouchedAt when they last claimed it again or acted on it.
	ClaimedAt, TouchedAt time.Time
}

// ActiveAt reports whether the claim still counts at now: it was touched less than lapse ago.
func (c *Claim) ActiveAt(now time.Time, lapse time.Duration) bool {
	return c != nil && now.Sub(c.TouchedAt) < lapse
}

// Claim returns the row's claim if it still counts at now, else nil.
func (c ClaimColumns) Claim(now time.Time, lapse time.Duration) *Claim {
	if c.ClaimAccountID == nil || c.ClaimedAt == nil || c.ClaimTouchedAt == nil {
		return nil
	}
	out := &Claim{AccountID: *c.ClaimAccountID, AccountName: Deref(c.ClaimAccountName), ClaimedAt: *c.ClaimedAt, TouchedAt: *c.ClaimTouchedAt}
	if !out.ActiveAt(now, lapse) {
		return nil
	}
	return out
}

// ClaimParams claims or releases rows for one person.
type ClaimParams struct {
	IDs   []string
	Actor ActionActor
	// Reason is the person's note; empty gives the default words of the audit entry.
	Reason string
	// Scope limits the rows to its courses (see Scope).
	Scope Scope
	// Lapse is how long an untouched claim counts; it decides whether a claim taken over was still
	// someone else's.
	Lapse time.Duration
}

// ClaimResult says which rows were claimed or released, and whose live claims were taken over.
type ClaimResult struct {
	IDs []string
	// TakenFrom names, by row id, the person whose live claim this one replaced.
	TakenFrom map[string]string
}

// AuditClaim is what a claim's or release's audit entry holds beside its reason.
type AuditClaim struct {
	// PreviousAccountID is whose claim was replaced or released, "" when the row was free.
	PreviousAccountID string     `json:"previous_account_id,omitempty"`
	PreviousClaimedAt *time.Time `json:"previous_claimed_at,omitempty"`
	// PreviousActive is whether that claim still counted (had not lapsed).
	PreviousActive bool `json:"previous_active,omitempty"`
	// EndedBy is the hand action that ended the claim, for a release no person asked for.
	EndedBy string `json:"ended_by,omitempty"`
	// ReasonCode names the reason when regdesk worded it itself (ClaimReasonClaimed and the
	// others), so the audit says it in the reader's language; "" for a reason a person typed,
	// which is shown as typed. The reason column keeps the English words too, for the JSON API
	// and for readers of the table.
	ReasonCode string `json:"reason_code,omitempty"`
}

// The reasons regdesk words itself for a claim or a release; see AuditClaim.ReasonCode.
const (
	ClaimReasonClaimed  = "claimed"
	ClaimReasonReleased = "released"
	ClaimReasonLookup   = "lookup"
	ClaimReasonEnded    = "ended_by_action"
)

// claimReasonWords are the English words each code stood for before codes were kept; old rows
// hold only them, and ReadClaimReason recognises them.
var claimReasonWords = map[string]string{
	ClaimReasonClaimed:  "I'm on it.",
	ClaimReasonReleased: "Released.",
	ClaimReasonLookup:   LookupClaimReason,
}

// ReadClaimReason returns the code of a claim's or release's reason: the one its details keep,
// or for an entry written before codes were kept the one whose English words it holds (an ended
// claim's "Ended by the hand action …." included); "" for a reason a person typed.
func ReadClaimReason(reason string, c *AuditClaim) string {
	if c == nil {
		return ""
	}
	if c.ReasonCode != "" {
		return c.ReasonCode
	}
	if c.EndedBy != "" && reason == endedReason(c.EndedBy) {
		return ClaimReasonEnded
	}
	for code, words := range claimReasonWords {
		if reason == words {
			return code
		}
	}
	return ""
}

func endedReason(action string) string { return "Ended by the hand action " + action + "." }

type claimTarget struct {
	ID string `db:"id"`
	ClaimColumns
}

// claimReason returns the person's note, trimmed, with no code; without a note, the English
// words of the fallback code and that code, so the audit words it in its reader's language.
func claimReason(reason, fallback string) (string, string, error) {
	reason = strings.TrimSpace(reason)
	if len([]rune(reason)) > ClaimReasonMaxLength {
		return "", "", &ValidationError{Field: "reason", Message: fmt.Sprintf("Keep the note under %d characters.", ClaimReasonMaxLength), Key: "invalid.noteTooLong", Args: []any{"Max", ClaimReasonMaxLength}}
	}
	if reason == "" {
		return claimReasonWords[fallback], fallback, nil
	}
	return reason, "", nil
}

// claimTargets reads the live rows among ids in scope, with their claims, locking the claims that
// exist so that two people claiming at once are recorded one after the other.
func (q *Queries) claimTargets(ctx context.Context, ids []string, scope Scope) ([]claimTarget, error) {
	var valid []string
	for _, id := range ids {
		if IsUUID(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return nil, nil
	}
	if _, err := q.db.Exec(ctx, `SELECT 1 FROM claims WHERE credit_registration_id = ANY($1::uuid[])
ORDER BY credit_registration_id FOR UPDATE`, valid); err != nil {
		return nil, dbError("claimTargets lock", err)
	}
	rows, _ := q.db.Query(ctx, `SELECT cr.id::text AS id, `+claimColumns+`
FROM ledger_mirror cr`+claimJoin+`
WHERE cr.id = ANY($1::uuid[]) AND `+liveSQL+` AND `+sqlInScope(2)+`
ORDER BY cr.id`, valid, scope.arg())
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[claimTarget])
	if err != nil {
		return nil, dbError("claimTargets", err)
	}
	return list, nil
}

// RegistrationClaim puts the person on every row of p.IDs they may see: a free row, a lapsed
// claim or someone else's live claim alike (a claim warns, it does not lock), each with its audit
// entry. Claiming one's own live claim again keeps its start and touches it. Ids naming no row in
// scope are left out of the result; none at all is ErrNotFound.
func (s *Store) RegistrationClaim(ctx context.Context, now time.Time, p ClaimParams) (ClaimResult, error) {
	reason, code, err := claimReason(p.Reason, ClaimReasonClaimed)
	if err != nil {
		return ClaimResult{}, err
	}
	out := ClaimResult{TakenFrom: map[string]string{}}
	err = s.InTx(ctx, func(q *Queries) error {
		targets, err := q.claimTargets(ctx, p.IDs, p.Scope)
		if err != nil {
			return err
		}
		if len(targets) == 0 {
			return fmt.Errorf("RegistrationClaim: %w", ErrNotFound)
		}
		for _, t := range targets {
			prev := t.ClaimColumns.Claim(now, p.Lapse)
			claimedAt := now
			if prev != nil && prev.AccountID == p.Actor.ID {
				claimedAt = prev.ClaimedAt
			}
			if _, err := q.db.Exec(ctx, `INSERT INTO claims (credit_registration_id, account_id, claimed_at, touched_at)
VALUES ($1, $2, $3, $4)
ON CONFLICT (credit_registration_id) DO UPDATE SET account_id = EXCLUDED.account_id, claimed_at = EXCLUDED.claimed_at,
  touched_at = EXCLUDED.touched_at`, t.ID, p.Actor.ID, claimedAt, now); err != nil {
				return dbError("RegistrationClaim", err)
			}
			details := AuditClaim{PreviousAccountID: Deref(t.ClaimAccountID), PreviousClaimedAt: t.ClaimedAt, PreviousActive: prev != nil, ReasonCode: code}
			if err := q.claimAuditInsert(ctx, now, "claim", t.ID, p.Actor, reason, details); err != nil {
				return err
			}
			if prev != nil && prev.AccountID != p.Actor.ID {
				out.TakenFrom[t.ID] = prev.AccountName
			}
			out.IDs = append(out.IDs, t.ID)
		}
		return nil
	})
	if err != nil {
		return ClaimResult{}, err
	}
	return out, nil
}

// RegistrationRelease takes the person off the rows of p.IDs that they hold a claim on, live or
// lapsed, each with its audit entry. Releasing a row one does not hold, someone else's included,
// does nothing to it: a claim is its holder's to give up (or to lapse, or for a settling action to
// end).
func (s *Store) RegistrationRelease(ctx context.Context, now time.Time, p ClaimParams) (ClaimResult, error) {
	reason, code, err := claimReason(p.Reason, ClaimReasonReleased)
	if err != nil {
		return ClaimResult{}, err
	}
	var out ClaimResult
	err = s.InTx(ctx, func(q *Queries) error {
		targets, err := q.claimTargets(ctx, p.IDs, p.Scope)
		if err != nil {
			return err
		}
		if len(targets) == 0 {
			return fmt.Errorf("RegistrationRelease: %w", ErrNotFound)
		}
		for _, t := range targets {
			if Deref(t.ClaimAccountID) != p.Actor.ID {
				continue
			}
			if err := q.claimDelete(ctx, now, t, p.Actor, reason, code, "", p.Lapse); err != nil {
				return err
			}
			out.IDs = append(out.IDs, t.ID)
		}
		return nil
	})
	if err != nil {
		return ClaimResult{}, err
	}
	return out, nil
}

func (q *Queries) claimDelete(ctx context.Context, now time.Time, t claimTarget, actor ActionActor, reason, code, endedBy string, lapse time.Duration) error {
	if _, err := q.db.Exec(ctx, `DELETE FROM claims WHERE credit_registration_id = $1`, t.ID); err != nil {
		return dbError("claimDelete", err)
	}
	details := AuditClaim{PreviousAccountID: Deref(t.ClaimAccountID), PreviousClaimedAt: t.ClaimedAt,
		PreviousActive: t.ClaimColumns.Claim(now, lapse) != nil, EndedBy: endedBy, ReasonCode: code}
	return q.claimAuditInsert(ctx, now, "release", t.ID, actor, reason, details)
}

// endClaim ends the claim on a row that a hand action settled, inside that action's transaction,
// and audits the release as the acting person's, naming the action. A row nobody claims is left
// alone. Lapsed claims end too: the row no longer waits for anyone.
func (q *Queries) endClaim(ctx context.Context, now time.Time, rowID string, actor ActionActor, action string) error {
	rows, _ := q.db.Query(ctx, `SELECT cl.credit_registration_id::text AS id, `+claimColumns+`
FROM claims cl JOIN accounts cla ON cla.id = cl.account_id
WHERE cl.credit_registration_id = $1
FOR UPDATE OF cl`, rowID)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[claimTarget])
	if err != nil {
		return dbError("endClaim", err)
	}
	for _, t := range list {
		// The lapse does not matter to an ended claim; the audit records whether it still counted
		// by the default.
		if err := q.claimDelete(ctx, now, t, actor, endedReason(action), ClaimReasonEnded, action, DefaultClaimLapse); err != nil {
			return err
		}
	}
	return nil
}

// touchClaim moves the last touch of the actor's own claim on a row, so a person still working it
// keeps it from lapsing.
func (q *Queries) touchClaim(ctx context.Context, now time.Time, rowID, accountID string) error {
	if _, err := q.db.Exec(ctx, `UPDATE claims SET touched_at = $3
WHERE credit_registration_id = $1 AND account_id = $2`, rowID, accountID, now); err != nil {
		return dbError("touchClaim", err)
	}
	return nil
}

func (q *Queries) claimAuditInsert(ctx context.Context, now time.Time, action, rowID string, actor ActionActor, reason string, c AuditClaim) error {
	raw, err := json.Marshal(AuditDetails{Claim: &c})
	if err != nil {
		return fmt.Errorf("claimAuditInsert: %w", err)
	}
	_, err = q.db.Exec(ctx, `INSERT INTO actions (id, created_at, action, target_kind, target_id,
  account_id, actor_role, reason, details, affected_row_count)
VALUES ($1, $2, $3, 'credit_registration', $4, $5, $6::account_role, $7, $8, 1)`,
		NewID(), now, action, rowID, actor.ID, actor.Role, reason, raw)
	if err != nil {
		return dbError("claimAuditInsert", err)
	}
	return nil
}

// LookupClaimReason is the audit's English words for a claim a Sisu lookup started; the entry
// keeps ClaimReasonLookup beside them.
const LookupClaimReason = "Looked it up in Sisu."

// LookupClaimOutcome is what a person's lookup did to the row's claim.
type LookupClaimOutcome string

// The outcomes of a lookup for the claim.
const (
	// LookupClaimNone: the lookup had no person, or someone else holds the row (left alone).
	LookupClaimNone LookupClaimOutcome = ""
	// LookupClaimTouched: the person's own claim was kept from lapsing.
	LookupClaimTouched LookupClaimOutcome = "touched"
	// LookupClaimStarted: nobody was on the row (or their claim had lapsed); now the person is.
	LookupClaimStarted LookupClaimOutcome = "started"
)

// EventInsertLookupClaiming records a person's Sisu lookup (EventInsertLookup) and, in the same
// transaction, counts it as work on the row: looking a row up is what support staff do when they
// are on it, so the person's own claim is touched and does not lapse while they work, and a row
// nobody is on (or whose claim lapsed) becomes theirs, audited as a claim, so the next person sees
// who is already looking before they look too. Someone else's live claim is left as it is: taking
// a row over stays a deliberate act. A lookup whose event names no person changes no claim.
func (s *Store) EventInsertLookupClaiming(ctx context.Context, e LookupEvent, actor ActionActor, lapse time.Duration) (string, LookupClaimOutcome, error) {
	var id string
	var outcome LookupClaimOutcome
	err := s.InTx(ctx, func(q *Queries) error {
		var err error
		if id, err = q.EventInsertLookup(ctx, e); err != nil || actor.ID == "" {
			return err
		}
		outcome, err = q.lookupClaim(ctx, e.CreatedAt, e.RegistrationID, actor, e.Scope, lapse)
		return err
	})
	if err != nil {
		return "", LookupClaimNone, err
	}
	return id, outcome, nil
}

func (q *Queries) lookupClaim(ctx context.Context, now time.Time, rowID string, actor ActionActor, scope Scope, lapse time.Duration) (LookupClaimOutcome, error) {
	targets, err := q.claimTargets(ctx, []string{rowID}, scope)
	if err != nil || len(targets) == 0 {
		return LookupClaimNone, err
	}
	t := targets[0]
	switch prev := t.ClaimColumns.Claim(now, lapse); {
	case prev != nil && prev.AccountID == actor.ID:
		return LookupClaimTouched, q.touchClaim(ctx, now, rowID, actor.ID)
	case prev != nil:
		return LookupClaimNone, nil
	}
	if _, err := q.db.Exec(ctx, `INSERT INTO claims (credit_registration_id, account_id, claimed_at, touched_at)
VALUES ($1, $2, $3, $3)
ON CONFLICT (credit_registration_id) DO UPDATE SET account_id = EXCLUDED.account_id, claimed_at = EXCLUDED.claimed_at,
  touched_at = EXCLUDED.touched_at`, rowID, actor.ID, now); err != nil {
		return LookupClaimNone, dbError("lookupClaim", err)
	}
	details := AuditClaim{PreviousAccountID: Deref(t.ClaimAccountID), PreviousClaimedAt: t.ClaimedAt, ReasonCode: ClaimReasonLookup}
	if err := q.claimAuditInsert(ctx, now, "claim", rowID, actor, LookupClaimReason, details); err != nil {
		return LookupClaimNone, err
	}
	return LookupClaimStarted, nil
}
