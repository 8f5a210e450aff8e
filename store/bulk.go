package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"regdesk/schedule"
)

// This file is regdesk's half of bulk hand actions: a preview that decides the action on every
// selected row, and, when the person applies it, a plan of the rows still unchanged since the
// preview and allowed by regdesk's rules (RegistrationBulkPrepare), which package handaction asks
// the LMS to act on, and the record of what the LMS did (RegistrationBulkRecord). Rows are read
// as action.go reads them: as the LMS has them now.

// BulkMaxRows is the most rows one bulk action may touch (the LMS's
// MAX_ROWS_PER_BULK_TRANSITION).
const BulkMaxRows = 500

// BulkPreviewParams selects the rows of a bulk action: IDs, or every row matching Filter (whose
// Scope limits a teacher's reach), at most BulkMaxRows either way.
type BulkPreviewParams struct {
	Action schedule.Action
	IDs    []string
	Filter *RegistrationFilter
	// Scope limits picked IDs to rows of its courses (a filter is limited by its own Scope): the
	// others are not found.
	Scope Scope
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
		scope = p.Filter.Scope
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
	// Scope limits the action to rows of its courses (see Scope); the others are not found,
	// checked in the locked read the rules decide on.
	Scope Scope
	// JobID, when set, is the background job (BulkJobCreate) this apply is: its end and result
	// are written with the record of what the LMS did.
	JobID string
}

// BulkApplyCheck reports the mistakes that make a bulk apply ask the LMS nothing (a missing
// reason, an unknown action), as a *ValidationError, without touching the database: a caller that
// applies in the background checks first, while the person still waits.
func BulkApplyCheck(p BulkApplyParams) error {
	_, err := validateAction(p.Action, p.Reason, p.Actor)
	return err
}

// BulkOutcome is what a bulk action did to one row.
type BulkOutcome string

// The bulk outcomes.
const (
	// BulkApplied: the LMS took the action.
	BulkApplied BulkOutcome = "applied"
	// BulkSkipped: regdesk's rules refuse the action on the row now, so the LMS was not asked.
	BulkSkipped BulkOutcome = "skipped"
	// BulkRefusedByLMS: the LMS was asked and refused, or did nothing to the row.
	BulkRefusedByLMS BulkOutcome = "refused_by_lms"
	// BulkChanged: the row (or its lookup) changed since the preview.
	BulkChanged BulkOutcome = "changed"
	// BulkRiskNotConfirmed: the row's risk was not among those confirmed.
	BulkRiskNotConfirmed BulkOutcome = "risk_not_confirmed"
	// BulkNotFound: no live row has the id.
	BulkNotFound BulkOutcome = "not_found"
	// BulkUnknown: the LMS was asked and its answer never came; look at the row.
	BulkUnknown BulkOutcome = "unknown"
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
	// versionBefore is the version the preview showed.
	versionBefore int64
}

// BulkResult is what a bulk action did, row by row, in id order.
type BulkResult struct {
	AuditID string
	Applied int
	Rows    []BulkRowResult
}

// BulkPlan is a bulk action as regdesk's rules judged it just before the LMS is asked: every
// selected row's result so far, and the rows to ask the LMS to act on (Ask, in id order).
type BulkPlan struct {
	Params BulkApplyParams
	Reason string
	Result BulkResult
	Ask    []string
	// TargetID is what regdesk's own audit names as the action's target: the first row.
	TargetID string
}

// RegistrationBulkPrepare judges a bulk action on the rows as the LMS has them now: it keeps for
// the LMS only rows whose version (and lookup) is what the preview showed, that regdesk's rules
// allow with bulk strictness (uncertain rows are always skipped) and whose risk was confirmed. It
// writes nothing. Bad input is a *ValidationError.
func (q *Queries) RegistrationBulkPrepare(ctx context.Context, now time.Time, p BulkApplyParams) (BulkPlan, error) {
	reason, err := validateAction(p.Action, p.Reason, p.Actor)
	if err != nil {
		return BulkPlan{}, err
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
		return BulkPlan{}, err
	}
	if len(ids) == 0 {
		// Every id was malformed: nothing to name as the target, and nothing to do.
		return BulkPlan{}, &ValidationError{Field: "rows", Message: "None of the selected rows exists.", Key: "invalid.bulkNoneExists"}
	}
	list, err := q.actionRowsByID(ctx, ids, p.Scope)
	if err != nil {
		return BulkPlan{}, fmt.Errorf("RegistrationBulkPrepare: %w", err)
	}
	plan := BulkPlan{Params: p, Reason: reason, Result: BulkResult{AuditID: NewID()}, TargetID: ids[0]}
	byID := map[string]*actionRow{}
	for i := range list {
		byID[list[i].ID] = &list[i]
	}
	for _, id := range append(slices.Clone(ids), bad...) {
		r := byID[id]
		if r == nil {
			plan.Result.Rows = append(plan.Result.Rows, BulkRowResult{ID: id, Outcome: BulkNotFound})
			continue
		}
		seenRow := seen[id]
		res := BulkRowResult{ID: id, Before: r.State, After: r.State, Version: r.Version, versionBefore: seenRow.Version}
		switch d := schedule.Decide(p.Action, r.scheduleFacts(), schedule.StrictnessAnyExceptSubmissionUncertain, now); {
		case r.Version != seenRow.Version || (restsOnLookup(p.Action) && r.lookupID() != seenRow.LookupID):
			res.Outcome = BulkChanged
		case !d.Allowed:
			res.Outcome, res.Decision = BulkSkipped, d
		case d.Risk.NeedsConfirmation() && !slices.Contains(p.ConfirmedRisks, d.Risk):
			res.Outcome, res.Decision = BulkRiskNotConfirmed, d
		default:
			res.Outcome, res.Decision = BulkUnknown, d
			plan.Ask = append(plan.Ask, id)
		}
		plan.Result.Rows = append(plan.Result.Rows, res)
	}
	return plan, nil
}

// BulkAttemptInsert records, before the LMS is asked, that the person asked for the bulk action,
// with every row's judgement; the rows asked of the LMS read "unknown" until the answer comes.
func (q *Queries) BulkAttemptInsert(ctx context.Context, now time.Time, plan BulkPlan) error {
	return q.auditInsert(ctx, auditRow{ID: plan.Result.AuditID, At: now, Action: string(plan.Params.Action), TargetID: plan.TargetID,
		Actor: plan.Params.Actor, Reason: plan.Reason, After: bulkAfter(plan.Params.Action), Details: bulkDetails(plan),
		Affected: 0})
}

// RegistrationBulkRecord records what the LMS did to the rows asked: it reads them again, and a row
// whose version moved since the plan was made was acted on (the LMS's answer counts its rows but
// does not name them). The LMS's answer (nil when it never came: then every row asked stays
// unknown) is recorded beside regdesk's attempt, and the job, if any, ends with the result.
func (q *Queries) RegistrationBulkRecord(ctx context.Context, now time.Time, plan BulkPlan, answered bool, answer any) (BulkResult, error) {
	out := plan.Result
	err := func() error {
		if answered && len(plan.Ask) > 0 {
			after, err := q.actionRowsByID(ctx, plan.Ask, plan.Params.Scope)
			if err != nil {
				return fmt.Errorf("RegistrationBulkRecord: %w", err)
			}
			current := map[string]*actionRow{}
			for i := range after {
				current[after[i].ID] = &after[i]
			}
			out.Applied = 0
			for i := range out.Rows {
				res := &out.Rows[i]
				if res.Outcome != BulkUnknown {
					continue
				}
				r := current[res.ID]
				switch {
				case r == nil:
					res.Outcome = BulkNotFound
				case r.Version != res.Version:
					res.Outcome, res.After, res.Version = BulkApplied, r.State, r.Version
					out.Applied++
				default:
					res.Outcome = BulkRefusedByLMS
				}
			}
		}
		outcome := AuditOutcomeApplied
		if !answered {
			outcome = AuditOutcomeUnknown
		}
		if answered {
			final := bulkDetails(BulkPlan{Params: plan.Params, Result: out})
			if err := q.ActionAnswerInsert(ctx, ActionAnswer{ActionID: out.AuditID, AnsweredAt: now, Outcome: outcome,
				Answer: BulkAnswer{LMS: answer, Rows: final.Rows}}); err != nil {
				return err
			}
		}
		if plan.Params.JobID != "" {
			return q.bulkJobApplied(ctx, plan.Params.JobID, out, now)
		}
		return nil
	}()
	if err != nil {
		return BulkResult{}, err
	}
	return out, nil
}

// BulkAnswer is what regdesk records of the LMS's answer to a bulk action: the answer as it came
// and what it did to each selected row, as regdesk read the rows afterwards.
type BulkAnswer struct {
	LMS  any               `json:"lms"`
	Rows []AuditRowOutcome `json:"rows"`
}

// bulkDetails is what regdesk's audit keeps of a bulk action: every selected row's judgement.
func bulkDetails(plan BulkPlan) AuditDetails {
	p := plan.Params
	var ids []string
	var perRow []AuditRowOutcome
	skipped := map[string]int{}
	for _, r := range plan.Result.Rows {
		if IsUUID(r.ID) {
			ids = append(ids, r.ID)
		}
		o := AuditRowOutcome{ID: r.ID, Outcome: r.Outcome, Before: r.Before, After: r.After, Refusal: r.Decision.Refusal, Risk: r.Decision.Risk}
		if r.Outcome != BulkNotFound {
			vb, v := r.versionBefore, r.Version
			o.VersionBefore, o.Version = &vb, &v
		}
		if r.Outcome == BulkSkipped {
			skipped[string(r.Decision.Refusal)]++
		}
		perRow = append(perRow, o)
	}
	return AuditDetails{Action: p.Action, Strictness: schedule.StrictnessAnyExceptSubmissionUncertain, Outcome: AuditOutcomeAsked,
		RegistrationIDs: ids, Rows: perRow, Skipped: skipped, ConfirmedRisks: p.ConfirmedRisks}
}

// bulkAfter is the state every row a bulk action moves ends in; nil when the action does not move
// rows.
func bulkAfter(a schedule.Action) *schedule.State {
	if t := bulkTarget(a); t != "" {
		return &t
	}
	return nil
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
