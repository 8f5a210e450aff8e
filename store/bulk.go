package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/schedule"
)

// This file is bulk hand actions: a preview that decides the action on every selected row, and an
// apply that acts, in one transaction, only on the rows unchanged since the preview. Both read and
// write rows as action.go does.

// BulkMaxRows is the most rows one bulk action may touch (the LMS's
// MAX_ROWS_PER_BULK_TRANSITION).
const BulkMaxRows = 500

// BulkPreviewParams selects the rows of a bulk action: IDs, or every row matching Filter (whose
// ScopeCourseIDs limits a teacher's reach), at most BulkMaxRows either way.
type BulkPreviewParams struct {
	Action schedule.Action
	IDs    []string
	Filter *RegistrationFilter
	// Scope, when not nil, limits picked IDs to rows of these courses (a filter is limited by its
	// own ScopeCourseIDs): the others are not found.
	Scope []string
}

// BulkPreviewRow is one selected row as the preview saw it. Version and LookupID go back with
// the apply, so only rows unchanged since the preview are acted on.
type BulkPreviewRow struct {
	ID       string
	Version  int64
	LookupID string
	State    schedule.State
	Decision schedule.Decision
}

// BulkGroup is the rows for which the same thing would happen.
type BulkGroup struct {
	Allowed bool
	// Refusal is why these rows would be skipped; "" when they would be acted on.
	Refusal schedule.RefusalCode
	// Target and Risk are what the rows would become and the risk, when acted on.
	Target schedule.State
	Risk   schedule.RiskLabel
	Rows   []BulkPreviewRow
}

// BulkPreview groups the selected rows by what the action would do to them.
type BulkPreview struct {
	Action schedule.Action
	// Rows are every selected row found, in id order.
	Rows []BulkPreviewRow
	// Groups put the rows acted on first (by target, then risk from normal to riskiest), then the
	// skipped ones by refusal.
	Groups []BulkGroup
	// NotFound are selected ids that name no live row (or one outside scope).
	NotFound []string
}

// RegistrationBulkPreview decides the action on every selected row at now with bulk strictness
// (uncertain rows are always skipped). Selecting more than BulkMaxRows rows, or none, is a
// *ValidationError.
func (q *Queries) RegistrationBulkPreview(ctx context.Context, now time.Time, p BulkPreviewParams) (BulkPreview, error) {
	if !p.Action.Valid() {
		return BulkPreview{}, &ValidationError{Field: "action", Message: fmt.Sprintf("%q is not a hand action", string(p.Action)), Key: "invalid.action", Args: []any{"Action", string(p.Action)}}
	}
	ids := p.IDs
	scope := p.Scope
	if p.Filter != nil {
		list, _, err := q.RegistrationList(ctx, now, *p.Filter, nil, BulkMaxRows+1)
		if err != nil {
			return BulkPreview{}, fmt.Errorf("RegistrationBulkPreview: %w", err)
		}
		if len(list) > BulkMaxRows {
			return BulkPreview{}, &ValidationError{Field: "filter", Message: fmt.Sprintf("More than %d rows match; narrow the filter.", BulkMaxRows), Key: "invalid.bulkTooMany", Args: []any{"Max", BulkMaxRows}}
		}
		ids = make([]string, len(list))
		for i, r := range list {
			ids[i] = r.ID
		}
		scope = p.Filter.ScopeCourseIDs
	}
	ids, bad, err := bulkIDs(ids, p.Filter == nil)
	if err != nil {
		return BulkPreview{}, err
	}
	out := BulkPreview{Action: p.Action, NotFound: bad}
	list, err := q.actionRowsByID(ctx, ids, scope)
	if err != nil {
		return BulkPreview{}, fmt.Errorf("RegistrationBulkPreview: %w", err)
	}
	found := map[string]bool{}
	for i := range list {
		r := &list[i]
		found[r.ID] = true
		out.Rows = append(out.Rows, BulkPreviewRow{ID: r.ID, Version: r.Version, LookupID: r.lookupID(), State: r.State,
			Decision: schedule.Decide(p.Action, r.scheduleFacts(), schedule.StrictnessAnyExceptSubmissionUncertain, now)})
	}
	for _, id := range ids {
		if !found[id] {
			out.NotFound = append(out.NotFound, id)
		}
	}
	slices.Sort(out.NotFound)
	out.Groups = groupRows(out.Rows)
	return out, nil
}

// bulkIDs removes duplicates and sorts, splits off ids that are not UUIDs, and enforces the
// size limit. An empty selection is an error only when the person picked rows by hand; an
// empty filter match is an empty preview.
func bulkIDs(ids []string, picked bool) (good, bad []string, err error) {
	seen := map[string]bool{}
	for _, id := range ids {
		id = strings.ToLower(strings.TrimSpace(id))
		if seen[id] {
			continue
		}
		seen[id] = true
		if IsUUID(id) {
			good = append(good, id)
		} else {
			bad = append(bad, id)
		}
	}
	if picked && len(good)+len(bad) == 0 {
		return nil, nil, &ValidationError{Field: "rows", Message: "Select at least one row.", Key: "invalid.bulkNone"}
	}
	if len(good)+len(bad) > BulkMaxRows {
		return nil, nil, &ValidationError{Field: "rows", Message: fmt.Sprintf("Select at most %d rows at once.", BulkMaxRows), Key: "invalid.bulkMax", Args: []any{"Max", BulkMaxRows}}
	}
	slices.Sort(good)
	return good, bad, nil
}

func groupRows(rows []BulkPreviewRow) []BulkGroup {
	var groups []BulkGroup
	for _, r := range rows {
		d := r.Decision
		i := slices.IndexFunc(groups, func(g BulkGroup) bool {
			return g.Allowed == d.Allowed && g.Refusal == d.Refusal && g.Target == d.Target && g.Risk == d.Risk
		})
		if i < 0 {
			groups = append(groups, BulkGroup{Allowed: d.Allowed, Refusal: d.Refusal, Target: d.Target, Risk: d.Risk})
			i = len(groups) - 1
		}
		groups[i].Rows = append(groups[i].Rows, r)
	}
	slices.SortStableFunc(groups, func(a, b BulkGroup) int {
		if a.Allowed != b.Allowed {
			if a.Allowed {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.Target, b.Target),
			cmp.Compare(slices.Index(schedule.RiskLabels(), a.Risk), slices.Index(schedule.RiskLabels(), b.Risk)),
			cmp.Compare(slices.Index(schedule.RefusalCodes(), a.Refusal), slices.Index(schedule.RefusalCodes(), b.Refusal)))
	})
	return groups
}

// BulkRow is a row the person applies a bulk action to, as the preview showed it.
type BulkRow struct {
	ID       string
	Version  int64
	LookupID string
}

// BulkApplyParams is a bulk hand action.
type BulkApplyParams struct {
	Action schedule.Action
	Rows   []BulkRow
	Reason string
	// ConfirmedRisks are the risks the person confirmed by name; rows whose decision carries
	// another risk than normal and not in this list are skipped.
	ConfirmedRisks []schedule.RiskLabel
	Actor          ActionActor
	// Scope, when not nil, limits the action to rows of these courses; the others are not found,
	// checked in the locked read the rules decide on.
	Scope []string
	// Progress, when set, is told after each row how many of the total have been gone through, so
	// a page can show a long apply moving. It runs inside the transaction: nothing it is told about
	// is visible to others until the whole action commits, and it must return quickly.
	Progress func(done, total int)
	// JobID, when set, is the background job (BulkJobCreate) this apply is: its end and result
	// are written in the apply's transaction, so the job reads as applied exactly when the rows
	// were changed.
	JobID string
}

// BulkApplyCheck reports the mistakes that make RegistrationBulkApply write nothing (a missing
// reason, an unknown action), as the *ValidationError it would return, without touching the
// database: a caller that applies in the background checks first, while the person still waits.
func BulkApplyCheck(p BulkApplyParams) error {
	_, err := validateAction(p.Action, p.Reason, p.Actor)
	return err
}

// BulkOutcome is what a bulk action did to one row.
type BulkOutcome string

// The bulk outcomes.
const (
	// BulkApplied: the action was taken.
	BulkApplied BulkOutcome = "applied"
	// BulkSkipped: the rules refuse the action on the row now.
	BulkSkipped BulkOutcome = "skipped"
	// BulkChanged: the row (or its lookup) changed since the preview.
	BulkChanged BulkOutcome = "changed"
	// BulkRiskNotConfirmed: the row's risk was not among those confirmed.
	BulkRiskNotConfirmed BulkOutcome = "risk_not_confirmed"
	// BulkNotFound: no live row has the id.
	BulkNotFound BulkOutcome = "not_found"
)

// BulkRowResult is one row's result.
type BulkRowResult struct {
	ID       string
	Outcome  BulkOutcome
	Decision schedule.Decision
	// Before and After are the row's state before and after; equal unless applied.
	Before, After schedule.State
	// Version is the row's version now.
	Version int64
}

// BulkResult is what a bulk action did, row by row, in id order.
type BulkResult struct {
	AuditID string
	Applied int
	Rows    []BulkRowResult
}

// RegistrationBulkApply applies a bulk action in one transaction: it locks the rows in id order,
// acts only on rows whose version (and lookup) is what the preview showed and that the rules
// allow with bulk strictness (uncertain rows are always skipped), and writes one event per row
// acted on and one audit row for the whole action with every row's outcome. Bad input is a
// *ValidationError and writes nothing.
func (s *Store) RegistrationBulkApply(ctx context.Context, now time.Time, p BulkApplyParams) (BulkResult, error) {
	reason, err := validateAction(p.Action, p.Reason, p.Actor)
	if err != nil {
		return BulkResult{}, err
	}
	seen := map[string]BulkRow{}
	var raw []string
	for _, r := range p.Rows {
		r.ID = strings.ToLower(strings.TrimSpace(r.ID))
		if _, dup := seen[r.ID]; !dup {
			raw = append(raw, r.ID)
		}
		seen[r.ID] = r
	}
	ids, bad, err := bulkIDs(raw, true)
	if err != nil {
		return BulkResult{}, err
	}
	op := fmt.Sprintf("RegistrationBulkApply %s", p.Action)
	var out BulkResult
	err = s.InTx(ctx, func(q *Queries) error {
		rows, _ := q.db.Query(ctx, `SELECT cr.id::text FROM credit_registrations cr
WHERE cr.id = ANY($1::uuid[]) AND `+liveSQL+` AND `+sqlInScope(2)+` ORDER BY cr.id FOR UPDATE`, ids, p.Scope)
		if _, err := pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return dbError(op+" lock", err)
		}
		list, err := q.actionRowsByID(ctx, ids, p.Scope)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		auditID := NewID()
		out = BulkResult{AuditID: auditID}
		byID := map[string]*actionRow{}
		for i := range list {
			byID[list[i].ID] = &list[i]
		}
		var perRow []AuditRowOutcome
		skipped := map[string]int{}
		all := append(slices.Clone(ids), bad...)
		for i, id := range all {
			if p.Progress != nil && i > 0 {
				p.Progress(i, len(all))
			}
			r := byID[id]
			if r == nil {
				out.Rows = append(out.Rows, BulkRowResult{ID: id, Outcome: BulkNotFound})
				perRow = append(perRow, AuditRowOutcome{ID: id, Outcome: BulkNotFound})
				continue
			}
			res := BulkRowResult{ID: id, Before: r.State, After: r.State, Version: r.Version}
			seenRow := seen[id]
			switch d := schedule.Decide(p.Action, r.scheduleFacts(), schedule.StrictnessAnyExceptSubmissionUncertain, now); {
			case r.Version != seenRow.Version || (restsOnLookup(p.Action) && r.lookupID() != seenRow.LookupID):
				res.Outcome = BulkChanged
			case !d.Allowed:
				res.Outcome, res.Decision = BulkSkipped, d
				skipped[string(d.Refusal)]++
			case d.Risk.NeedsConfirmation() && !slices.Contains(p.ConfirmedRisks, d.Risk):
				res.Outcome, res.Decision = BulkRiskNotConfirmed, d
			default:
				w, err := q.applyAction(ctx, now, r, d, reason, p.Actor, auditID)
				if err != nil {
					return fmt.Errorf("%s %s: %w", op, id, err)
				}
				res.Outcome, res.Decision, res.After, res.Version = BulkApplied, d, w.after, w.version
				out.Applied++
			}
			out.Rows = append(out.Rows, res)
			perRow = append(perRow, AuditRowOutcome{ID: id, Outcome: res.Outcome, Before: res.Before, After: res.After,
				Refusal: res.Decision.Refusal, Risk: res.Decision.Risk, VersionBefore: &seenRow.Version, Version: &res.Version})
		}
		details := AuditDetails{Action: p.Action, Strictness: schedule.StrictnessAnyExceptSubmissionUncertain,
			RegistrationIDs: ids, Rows: perRow, Skipped: skipped, ConfirmedRisks: p.ConfirmedRisks}
		var after *schedule.State
		if t := bulkTarget(p.Action); t != "" {
			after = &t
		}
		target := ids
		if len(target) == 0 {
			target = []string{bad[0]}
		}
		if !IsUUID(target[0]) {
			// Every id was malformed: nothing to name as the target, and nothing was done.
			return &ValidationError{Field: "rows", Message: "None of the selected rows exists.", Key: "invalid.bulkNoneExists"}
		}
		if p.Progress != nil {
			p.Progress(len(all), len(all))
		}
		if err := q.auditInsert(ctx, auditRow{ID: auditID, At: now, Action: auditActionOf(p.Action), TargetID: target[0],
			Actor: p.Actor, Reason: reason, After: after, Details: details, Affected: out.Applied}); err != nil {
			return err
		}
		if p.JobID != "" {
			return q.bulkJobApplied(ctx, p.JobID, out, now)
		}
		return nil
	})
	if err != nil {
		return BulkResult{}, err
	}
	return out, nil
}

// bulkTarget is the state every row a bulk action moves ends in; "" when the action does not
// move rows or its target varies.
func bulkTarget(a schedule.Action) schedule.State {
	switch a {
	case schedule.ActionResubmit:
		return schedule.StateReadyToSubmit
	case schedule.ActionCancel:
		return schedule.StateCancelled
	}
	return ""
}
