package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// This file is credit_registration_admin_actions, the audit of every hand action: auditInsert
// writes a row inside the transaction of the action it records (action.go, bulk.go), AuditList
// reads them, together with account_changes (account_admin.go): the audit a person reads is one
// list of who changed what, when and why, a registration or an account. An account change shows
// as the action "account_<change>" on the target kind "account"; its actor is empty for the
// command line on the server. Nothing here, or anywhere, updates or deletes an audit row: the table's trigger
// refuses both.

// AuditFilter narrows the audit list. Empty fields do not filter.
type AuditFilter struct {
	// ActorID keeps the actions of one account.
	ActorID string
	// Action keeps one hand action (schedule.Action, as the entry's details name it) or, for
	// entries no hand action wrote, one value of the audit's own action enum.
	Action string
	// CourseID keeps actions on registrations of one course, bulk actions included when any of
	// their rows is on it.
	CourseID string
	// RegistrationID keeps actions on one registration, bulk actions that named it included.
	RegistrationID string
	// AccountID keeps the changes to one account.
	AccountID string
	// From and To bound created_at: From inclusive, To exclusive.
	From, To *time.Time
}

// AuditActionAccounts is the Action filter that keeps every change to an account; one kind of
// change is AuditActionAccountPrefix + the change ("account_role_changed").
const (
	AuditActionAccounts      = "account"
	AuditActionAccountPrefix = "account_"
	AuditTargetAccount       = "account"
)

// Where an audit entry comes from.
const (
	// AuditSourceLMS is the LMS's own audit, written by its admin endpoints (from regdesk or the
	// LMS's admin UI).
	AuditSourceLMS = "lms"
	// AuditSourceRegdesk is regdesk's record of what a person did through it.
	AuditSourceRegdesk = "regdesk"
	// AuditSourceAccount is a change to an account.
	AuditSourceAccount = "account"
)

// AuditCursor marks where an audit page ended; the next page starts after it.
type AuditCursor struct {
	CreatedAt time.Time
	ID        string
}

// AuditEntry is one audit row with the name of the person who acted.
type AuditEntry struct {
	ID        string    `db:"id"`
	CreatedAt time.Time `db:"created_at"`
	// Action is the audit enum value (transition_item, mark_resolved, ...); HandAction the hand
	// action the details name ("" when none).
	Action     string  `db:"action"`
	HandAction string  `db:"hand_action"`
	TargetKind string  `db:"target_kind"`
	TargetID   *string `db:"target_id"`
	// TargetLabel names a registration target: "student · course"; "" for other targets.
	TargetLabel string `db:"target_label"`
	// ActorID is the account that acted; "" for an LMS audit row by an LMS user no account is.
	ActorID   string `db:"actor_id"`
	ActorName string `db:"actor_name"`
	// Source says who kept the row: AuditSourceLMS, AuditSourceRegdesk or AuditSourceAccount.
	Source      string  `db:"source"`
	ActorRole   string  `db:"actor_role"`
	Reason      string  `db:"reason"`
	BeforeState *string `db:"before_state"`
	AfterState  *string `db:"after_state"`
	// Details is the entry's jsonb as written; ReadAuditDetails decodes it.
	Details  json.RawMessage `db:"details"`
	Affected int32           `db:"affected_row_count"`
	// Outcome is what came of a hand action regdesk asked the LMS for (AuditOutcome…): the LMS's
	// answer, or AuditOutcomeUnknown when it never came; the LMS's own rows carry their
	// details' outcome. "" for entries that are not hand actions.
	Outcome string `db:"outcome"`
	// Refusal is the LMS's refusal (or its error message) when it did not act.
	Refusal *string `db:"refusal"`
	// Answer is the LMS's answer as regdesk recorded it (BulkAnswer for a bulk action).
	Answer json.RawMessage `db:"answer"`
}

const auditColumns = `a.id::text AS id, a.created_at, a.action::text AS action,
  coalesce(a.hand_action, '') AS hand_action, a.target_kind::text AS target_kind,
  a.target_id::text AS target_id,
  coalesce(nullif(btrim(concat_ws(' ', ts.first_name, ts.last_name)), '') || ' · ' || tc.name, ts.email || ' · ' || tc.name,
    ta.name || ' · ' || ta.email, tmc.name || coalesce(' · ' || tm.name, ''), a.target_phase, '') AS target_label,
  coalesce(a.actor_user_id::text, '') AS actor_id, coalesce(ac.name, nullif(` + sqlLMSUserName + `, ''), '') AS actor_name,
  a.source,
  a.actor_role, a.reason, a.before_state::text AS before_state, a.after_state::text AS after_state, a.details,
  a.affected_row_count, coalesce(a.outcome, '') AS outcome, a.refusal, a.answer`

// auditRegistrationIDs is the registrations an audit row names: its target, and a bulk action's
// every row.
const auditRegistrationIDs = `(SELECT a.target_id WHERE a.target_kind = 'credit_registration'
  UNION SELECT x::uuid FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(a.details->'credit_registration_ids') = 'array'
    THEN a.details->'credit_registration_ids' ELSE '[]'::jsonb END) x)`

// AuditList returns up to limit audit entries matching f, newest first, starting after the cursor
// (nil: the first page), and the cursor of the next page (nil: this was the last). An id in the
// filter that is not a UUID matches nothing.
func (q *Queries) AuditList(ctx context.Context, f AuditFilter, after *AuditCursor, limit int) ([]AuditEntry, *AuditCursor, error) {
	where, args, ok := auditWhere(f, after)
	if !ok {
		return nil, nil, nil
	}
	rows, _ := q.db.Query(ctx, auditSelect(auditPage(where, limit+1))+fmt.Sprintf(`
LIMIT %d`, limit+1), args...)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[AuditEntry])
	if err != nil {
		return nil, nil, dbError("AuditList", err)
	}
	if len(list) <= limit {
		return list, nil, nil
	}
	list = list[:limit]
	last := list[limit-1]
	return list, &AuditCursor{CreatedAt: last.CreatedAt, ID: last.ID}, nil
}

// auditSelect reads the audit entries (AuditEntry) of page, an auditPage, newest first.
func auditSelect(page string) string {
	return `SELECT ` + auditColumns + `
FROM ` + page + ` a
  LEFT JOIN accounts ac ON ac.id = a.actor_user_id
  LEFT JOIN user_details da ON da.user_id = a.actor_lms_user_id
  LEFT JOIN ledger_mirror tr ON tr.id = a.target_id AND a.target_kind = 'credit_registration'
  LEFT JOIN user_details ts ON ts.user_id = tr.user_id
  LEFT JOIN courses tc ON tc.id = tr.course_id
  LEFT JOIN accounts ta ON ta.id = a.target_id AND a.target_kind = '` + AuditTargetAccount + `'
  LEFT JOIN course_modules tm ON tm.id = a.target_id AND a.target_kind = 'course_module'
  LEFT JOIN courses tmc ON tmc.id = tm.course_id
ORDER BY a.created_at DESC, a.id DESC`
}

// auditFrom is the audit as one relation, in one set of columns: the LMS's own audit of what it
// applied (credit_registration_admin_actions: its actor an LMS user, named from user_details and
// matched to the account that is that user, if any), regdesk's own record of what people did
// through it (actions: claims, and the hand actions it asked the LMS for), and the account changes.
// A UNION ALL of plain columns, every branch naming them alike; source says which: "lms",
// "regdesk" or "account". A page reads it through auditPage.
const auditFrom = `(` + auditFromLMS + `
  UNION ALL
` + auditFromRegdesk + `
  UNION ALL
` + auditFromAccounts + `)`

// auditFromLMS, auditFromRegdesk and auditFromAccounts are auditFrom's three branches.
const (
	auditFromLMS = `SELECT x.id, x.created_at, x.action::text AS action, NULL::text AS hand_action,
    x.target_kind::text AS target_kind, x.target_id, acc.id AS actor_user_id, x.actor_user_id AS actor_lms_user_id,
    x.actor_role::text AS actor_role, coalesce(x.reason, '') AS reason, x.before_state::text AS before_state,
    x.after_state::text AS after_state, x.details, coalesce(x.affected_row_count, 1) AS affected_row_count, 'lms' AS source,
    x.details->>'outcome' AS outcome, NULL::text AS refusal, NULL::jsonb AS answer, x.target_phase::text AS target_phase
  FROM credit_registration_admin_actions x
    LEFT JOIN accounts acc ON acc.lms_user_id = x.actor_user_id
  WHERE x.deleted_at IS NULL
    -- An action regdesk asked the LMS for is regdesk's entry, with the LMS's answer beside it; the
    -- LMS's own row of it (same person, same row, while the call was out) is not shown twice.
    AND NOT EXISTS (SELECT 1 FROM actions r
      LEFT JOIN action_answers ans ON ans.action_id = r.id
      WHERE acc.id IS NOT NULL AND r.account_id = acc.id AND r.action NOT IN ('claim', 'release')
        AND (r.target_id = x.target_id OR r.affected_row_count <> 1 OR r.details ? 'credit_registration_ids')
        AND x.created_at BETWEEN r.created_at - interval '1 minute' AND coalesce(ans.answered_at, r.created_at) + interval '1 minute')`
	auditFromRegdesk = `SELECT r.id, r.created_at, r.action, r.action AS hand_action, r.target_kind, r.target_id, r.account_id AS actor_user_id,
    NULL::uuid AS actor_lms_user_id, r.actor_role::text AS actor_role,
    r.reason, r.before_state, coalesce(ans.state_after, r.after_state) AS after_state,
    -- A bulk action's rows as the LMS's answer left them, and how many it acted on.
    CASE WHEN ans.answer ? 'rows' THEN r.details || jsonb_build_object('rows', ans.answer->'rows') ELSE r.details END AS details,
    CASE WHEN ans.answer ? 'rows' THEN (SELECT count(*)::int FROM jsonb_array_elements(ans.answer->'rows') x
      WHERE x->>'outcome' = 'applied') ELSE r.affected_row_count END AS affected_row_count, 'regdesk' AS source,
    CASE WHEN ans.outcome IS NOT NULL THEN ans.outcome WHEN r.details->>'outcome' = '` + AuditOutcomeAsked + `'
      THEN '` + AuditOutcomeUnknown + `' END AS outcome, ans.refusal, ans.answer, NULL AS target_phase
  FROM actions r
    LEFT JOIN action_answers ans ON ans.action_id = r.id`
	auditFromAccounts = `SELECT c.id, c.created_at, '` + AuditActionAccountPrefix + `' || c.change AS action, NULL AS hand_action,
    '` + AuditTargetAccount + `' AS target_kind, c.account_id AS target_id, c.actor_user_id, NULL::uuid AS actor_lms_user_id,
    coalesce(c.actor_role::text, '') AS actor_role, c.reason, NULL AS before_state, NULL AS after_state, c.details,
    1 AS affected_row_count, 'account' AS source, NULL AS outcome, NULL AS refusal, NULL::jsonb AS answer, NULL AS target_phase
  FROM account_changes c`
)

// auditPage is auditFrom for one page of limit entries matching where: each branch filtered,
// ordered and cut to the page before the three are merged. The LMS's audit has an index on
// created_at alone, so merged whole the planner sorted every LMS row for the page (3 ms at 2,150
// rows, growing with the LMS's audit); cut per branch it walks that index newest first (0.9 ms).
func auditPage(where string, limit int) string {
	parts := make([]string, 0, 3)
	for _, b := range []string{auditFromLMS, auditFromRegdesk, auditFromAccounts} {
		parts = append(parts, fmt.Sprintf("(SELECT * FROM (%s) a\n  WHERE %s\n  ORDER BY a.created_at DESC, a.id DESC LIMIT %d)", b, where, limit))
	}
	return "(" + strings.Join(parts, "\n  UNION ALL\n") + ")"
}

// auditWhere is the condition on "a" that f and the cursor ask for, with its arguments; ok is
// false when f names an id that is not a UUID, which matches nothing.
func auditWhere(f AuditFilter, after *AuditCursor) (where string, args []any, ok bool) {
	var conds []string
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	for _, id := range []string{f.ActorID, f.CourseID, f.RegistrationID, f.AccountID} {
		if id != "" && !IsUUID(id) {
			return "", nil, false
		}
	}
	if f.ActorID != "" {
		conds = append(conds, `a.actor_user_id = `+arg(f.ActorID)+`::uuid`)
	}
	if f.Action == AuditActionAccounts {
		conds = append(conds, `a.target_kind = '`+AuditTargetAccount+`'`)
	} else if f.Action != "" {
		p := arg(f.Action)
		conds = append(conds, `(a.hand_action = `+p+` OR a.action = `+p+`)`)
	}
	if f.RegistrationID != "" {
		conds = append(conds, arg(f.RegistrationID)+`::uuid IN `+auditRegistrationIDs)
	}
	if f.AccountID != "" {
		conds = append(conds, `a.target_kind = '`+AuditTargetAccount+`' AND a.target_id = `+arg(f.AccountID)+`::uuid`)
	}
	if f.CourseID != "" {
		conds = append(conds, `EXISTS (SELECT 1 FROM ledger_mirror cr WHERE cr.course_id = `+arg(f.CourseID)+
			`::uuid AND cr.id IN `+auditRegistrationIDs+`)`)
	}
	if f.From != nil {
		conds = append(conds, `a.created_at >= `+arg(*f.From))
	}
	if f.To != nil {
		conds = append(conds, `a.created_at < `+arg(*f.To))
	}
	if after != nil {
		conds = append(conds, `(a.created_at, a.id) < (`+arg(after.CreatedAt)+`, `+arg(after.ID)+`::uuid)`)
	}
	where = "true"
	if len(conds) > 0 {
		where = strings.Join(conds, "\n  AND ")
	}
	return where, args, true
}

// AuditDetails is what an audit row's details hold; action.go and bulk.go write it, the audit
// page reads it (ReadAuditDetails). One person's action on one row fills the first group of
// fields, a bulk action the second.
type AuditDetails struct {
	// Action and Strictness are empty for entries no hand action wrote (a claim, say), so the
	// audit filter finds those by the entry's own action.
	Action     schedule.Action     `json:"action,omitempty"`
	Strictness schedule.Strictness `json:"strictness,omitempty"`

	// Claim is set for claiming and releasing a row.
	Claim *AuditClaim `json:"claim,omitempty"`

	// Outcome is "applied": a refused single action writes nothing.
	Outcome       string         `json:"outcome,omitempty"`
	Decision      *AuditDecision `json:"decision,omitempty"`
	VersionBefore *int64         `json:"version_before,omitempty"`
	VersionAfter  *int64         `json:"version_after,omitempty"`
	// Lookup is the Sisu lookup the decision rested on, for the actions that rest on one.
	Lookup *AuditLookup `json:"lookup,omitempty"`

	// RegistrationIDs are every selected row that is a UUID; Rows says what happened to each
	// selected row, malformed ids included.
	RegistrationIDs []string          `json:"credit_registration_ids,omitzero"`
	Rows            []AuditRowOutcome `json:"rows,omitzero"`
	// Skipped counts the skipped rows per refusal code.
	Skipped        map[string]int       `json:"skipped,omitzero"`
	ConfirmedRisks []schedule.RiskLabel `json:"confirmed_risks,omitzero"`
}

// AuditDecision is the decision a single action was taken on.
type AuditDecision struct {
	Allowed bool `json:"allowed"`
	// Explanation is the English sentence entries held before Say was kept, all such an entry
	// has; regdesk no longer writes it.
	Explanation string `json:"explanation,omitempty"`
	// Say names the decision's sentence in the catalogue (decision.<say>), so the entry reads in
	// the reader's language.
	Say         string               `json:"say,omitempty"`
	Refusal     schedule.RefusalCode `json:"refusal,omitempty"`
	Risk        schedule.RiskLabel   `json:"risk,omitempty"`
	Target      schedule.State       `json:"target,omitempty"`
	Check       schedule.CheckTarget `json:"check,omitempty"`
	Reasons     []schedule.Reason    `json:"reasons,omitempty"`
	AvailableAt *time.Time           `json:"available_at,omitempty"`
}

// AuditLookup is the Sisu lookup an action rested on.
type AuditLookup struct {
	EventID string               `json:"event_id"`
	At      time.Time            `json:"at"`
	Verdict schedule.VerdictKind `json:"verdict"`
	Match   AuditMatch           `json:"match"`
}

// AuditMatch is the attainment the lookup matched; empty when it matched none.
type AuditMatch struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Ours bool   `json:"ours"`
}

// AuditRowOutcome is what a bulk action did to one selected row. A row that was not found has
// only its id and outcome.
type AuditRowOutcome struct {
	ID      string               `json:"id"`
	Outcome BulkOutcome          `json:"outcome"`
	Before  schedule.State       `json:"before,omitempty"`
	After   schedule.State       `json:"after,omitempty"`
	Refusal schedule.RefusalCode `json:"refusal,omitempty"`
	Risk    schedule.RiskLabel   `json:"risk,omitempty"`
	// VersionBefore is the version the preview showed, Version the row's version now.
	VersionBefore *int64 `json:"version_before,omitempty"`
	Version       *int64 `json:"version,omitempty"`
}

// ReadAuditDetails decodes an audit row's details; details it cannot read give the zero value, so
// a page shows less rather than fail.
func ReadAuditDetails(raw []byte) AuditDetails { return readJSON[AuditDetails](raw) }

func auditDecisionOf(d schedule.Decision) *AuditDecision {
	out := &AuditDecision{Allowed: d.Allowed, Say: d.Say, Refusal: d.Refusal, Risk: d.Risk, Target: d.Target,
		Check: d.Check, Reasons: d.Reasons}
	if d.AvailableAt != nil {
		at := d.AvailableAt.UTC()
		out.AvailableAt = &at
	}
	return out
}

func auditLookupOf(l *LookupSummary) *AuditLookup {
	return &AuditLookup{EventID: l.EventID, At: l.At.UTC(), Verdict: l.Verdict,
		Match: AuditMatch{ID: l.MatchID, Type: l.MatchType, Ours: l.MatchOurs}}
}

// auditRow is one credit_registration_admin_actions row.
type auditRow struct {
	ID            string
	At            time.Time
	Action        string
	TargetID      string
	Actor         ActionActor
	Reason        string
	Before, After *schedule.State
	Details       AuditDetails
	Affected      int
}

func (q *Queries) auditInsert(ctx context.Context, a auditRow) error {
	raw, err := json.Marshal(a.Details)
	if err != nil {
		return fmt.Errorf("auditInsert details: %w", err)
	}
	state := func(s *schedule.State) *string {
		if s == nil {
			return nil
		}
		v := string(*s)
		return &v
	}
	_, err = q.db.Exec(ctx, `INSERT INTO actions (id, created_at, action, target_kind, target_id,
  account_id, actor_role, reason, before_state, after_state, details, affected_row_count)
VALUES ($1, $2, $3, 'credit_registration', $4, $5, $6::account_role, $7, $8, $9, $10, $11)`,
		a.ID, a.At, a.Action, a.TargetID, a.Actor.ID, a.Actor.Role, a.Reason, state(a.Before), state(a.After), raw, a.Affected)
	if err != nil {
		return dbError("auditInsert", err)
	}
	return nil
}
