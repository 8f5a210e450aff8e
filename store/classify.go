package store

import (
	"fmt"
	"strings"
	"time"

	"regdesk/schedule"
)

// This file mirrors schedule.Classify in SQL, so filters and counts run in the database on a
// million rows instead of in Go. The rules are schedule's; the numbers below come from its
// constants; TestClassifySQLAgreesWithSchedule proves the two agree on generated rows.
//
// Every expression reads the row as "cr", the live dismissal as "d" (LEFT JOIN), and the current
// instant as the query's $1. Whole-second window rules (schedule's "inclusive, truncated to whole
// seconds") are written as plain comparisons: for a window of whole seconds W and an age A > 0,
// trunc(A) >= W exactly when A >= W.

// interval renders d as a PostgreSQL interval literal in microseconds, the database's precision,
// so no calendar arithmetic (days, months) can creep in.
func interval(d time.Duration) string {
	return fmt.Sprintf("interval '%d microseconds'", d.Microseconds())
}

// quoteList renders values as a SQL list of string literals; only schedule's own constants reach it.
func quoteList[T ~string](vals ...T) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = "'" + strings.ReplaceAll(string(v), "'", "''") + "'"
	}
	return strings.Join(parts, ", ")
}

var (
	terminalStates = func() []schedule.State {
		var out []schedule.State
		for _, s := range schedule.States() {
			if s.IsTerminal() {
				out = append(out, s)
			}
		}
		return out
	}()
	verificationStates = func() []schedule.State {
		var out []schedule.State
		for _, s := range schedule.States() {
			if s.InVerification() {
				out = append(out, s)
			}
		}
		return out
	}()
)

const liveSQL = `cr.deleted_at IS NULL`

// sqlNonTerminal is true for rows whose state is not terminal.
var sqlNonTerminal = `cr.state NOT IN (` + quoteList(terminalStates...) + `)`

// sqlInVerification is true for rows the verify phase owns.
var sqlInVerification = `cr.state IN (` + quoteList(verificationStates...) + `)`

// sqlAttentionCandidate is true for every row a reason can pick; idx_credit_registrations_attention
// covers exactly these live rows.
var sqlAttentionCandidate = `cr.superseded_by_id IS NULL AND (` + sqlNonTerminal +
	` OR cr.needs_admin_attention OR cr.error_code = 'retry_window_expired')`

// phasePredicate returns a condition true for the rows in phase p. The verification windows are
// ranges of submitted_at, so idx_credit_registrations_verification serves them.
func phasePredicate(p schedule.Phase) string {
	notSuperseded := `cr.superseded_by_id IS NULL AND `
	verif := notSuperseded + sqlInVerification + ` AND `
	after := func(d time.Duration) string { return `cr.submitted_at > $1::timestamptz - ` + interval(d) }
	atOrBefore := func(d time.Duration) string { return `cr.submitted_at <= $1::timestamptz - ` + interval(d) }
	switch p {
	case schedule.PhaseSuperseded:
		return `cr.superseded_by_id IS NOT NULL`
	case schedule.PhaseWaiting:
		return verif + after(schedule.VerifyWindowStart)
	case schedule.PhaseDenseWindow:
		return verif + `(cr.submitted_at IS NULL OR (` + atOrBefore(schedule.VerifyWindowStart) + ` AND ` + after(schedule.VerifyDenseWindowEnd) + `))`
	case schedule.PhaseLateWindow:
		return verif + atOrBefore(schedule.VerifyDenseWindowEnd) + ` AND ` + after(schedule.VerifyWindowEnd)
	case schedule.PhaseBackingOff:
		return verif + atOrBefore(schedule.VerifyWindowEnd) + ` AND ` + after(schedule.VerifyMaxAge)
	case schedule.PhasePastGiveUpAge:
		return verif + atOrBefore(schedule.VerifyMaxAge)
	}
	states := statesOfPhase(p)
	if len(states) == 0 {
		return `false`
	}
	return notSuperseded + `cr.state IN (` + quoteList(states...) + `)`
}

// statesOfPhase lists the states that classify as p outside verification and supersession, found
// by asking schedule itself, so a new state mapping needs no edit here.
func statesOfPhase(p schedule.Phase) []schedule.State {
	var out []schedule.State
	var zero time.Time
	for _, s := range schedule.States() {
		if s.InVerification() {
			continue
		}
		if schedule.Classify(schedule.Row{State: s}, zero).Phase == p {
			out = append(out, s)
		}
	}
	return out
}

// reasonConditions are the conditions of schedule's reasons, except flagged_by_pipeline, which
// is "the flag is up and no other escalating reason applies". Each is evaluated on attention candidates only.
var reasonConditions = []struct {
	reason schedule.Reason
	cond   string
}{
	{schedule.ReasonUncertainOverdue,
		`cr.state = 'submission_uncertain' AND cr.submitted_at <= $1::timestamptz - ` + interval(schedule.UncertainAdminAfter)},
	{schedule.ReasonPartialOverdue,
		`cr.state = 'partially_registered' AND cr.partially_registered_at <= $1::timestamptz - ` + interval(schedule.PartialRegistrationAdminAfter)},
	{schedule.ReasonVerificationGaveUp,
		sqlInVerification + ` AND cr.submitted_at <= $1::timestamptz - ` + interval(schedule.VerifyMaxAge)},
	{schedule.ReasonRepeatedlyNotRegistered,
		sqlNonTerminal + fmt.Sprintf(` AND cr.not_registered_reimport_count >= %d`, schedule.NotRegisteredReimportAdminThreshold)},
	{schedule.ReasonRetryWindowExpired,
		`(cr.error_code = 'retry_window_expired' OR (cr.state = 'failed_retryable' AND cr.first_failed_at <= $1::timestamptz - ` + interval(schedule.SubmitMaxRetryAge) + `))`},
	{schedule.ReasonMisregistered,
		`cr.state = 'misregistered'`},
	{schedule.ReasonPermanentError,
		`cr.state = 'failed_permanent' AND cr.needs_admin_attention AND cr.error_code IS DISTINCT FROM 'retry_window_expired'`},
	{schedule.ReasonStuckPastRecoveryGrace,
		`((cr.state = 'submitting' AND coalesce(cr.submitted_at, cr.state_entered_at) <= $1::timestamptz - ` + interval(schedule.SubmittingRecoveryGrace) + `)` +
			` OR (cr.state = 'resolving_enrolment' AND cr.state_entered_at <= $1::timestamptz - ` + interval(schedule.ResolvingRecoveryGrace) + `))`},
	{schedule.ReasonTooManyAttempts,
		sqlNonTerminal + fmt.Sprintf(` AND cr.submit_retry_count >= %d`, schedule.TooManySubmitRetries)},
	{schedule.ReasonRunningLate, runningLateCondition()},
}

// runningLateCondition is true past the per-state "running late" threshold (strictly past, as
// schedule has it).
func runningLateCondition() string {
	var parts []string
	for _, s := range schedule.States() {
		if d, ok := schedule.StuckThreshold(s); ok {
			parts = append(parts, fmt.Sprintf(`(cr.state = '%s' AND cr.state_changed_at < $1::timestamptz - %s)`, s, interval(d)))
		}
	}
	if len(parts) == 0 {
		return `false`
	}
	return `(` + strings.Join(parts, ` OR `) + `)`
}

// sqlReasons is an expression giving the row's reasons as text[], in schedule.Reasons() order.
var sqlReasons = func() string {
	var cases, others []string
	for _, rc := range reasonConditions {
		cases = append(cases, `CASE WHEN `+rc.cond+` THEN '`+string(rc.reason)+`' END`)
		if rc.reason.Escalates() {
			others = append(others, `(`+rc.cond+`)`)
		}
	}
	flagged := `CASE WHEN cr.needs_admin_attention AND NOT coalesce(` + strings.Join(others, ` OR `) + `, false) THEN '` +
		string(schedule.ReasonFlaggedByPipeline) + `' END`
	all := append(cases, flagged)
	ordered := make([]string, 0, len(all))
	// Emit in schedule's display order, whatever order reasonConditions lists them in.
	byReason := map[string]string{}
	for i, rc := range reasonConditions {
		byReason[string(rc.reason)] = all[i]
	}
	byReason[string(schedule.ReasonFlaggedByPipeline)] = flagged
	for _, r := range schedule.Reasons() {
		if c, ok := byReason[string(r)]; ok {
			ordered = append(ordered, c)
		}
	}
	return `array_remove(ARRAY[` + strings.Join(ordered, ",\n  ") + `]::text[], NULL)`
}()

// escalatingReasons lists the reasons that make a row need a person (all but running late).
var escalatingReasons = func() []string {
	var out []string
	for _, r := range schedule.Reasons() {
		if r.Escalates() {
			out = append(out, string(r))
		}
	}
	return out
}()

// sqlEscalating is the reasons among escalating ones, as a text[] literal.
var sqlEscalating = `ARRAY[` + quoteList(escalatingReasons...) + `]::text[]`

// attentionFrom is the FROM clause that gives every attention candidate its reasons (rs.reasons)
// and its live dismissal's reasons (dismissed, text[] or NULL).
var attentionFrom = `credit_registrations cr
  LEFT JOIN credit_registration_attention_dismissals d
    ON d.credit_registration_id = cr.id AND d.deleted_at IS NULL
  CROSS JOIN LATERAL (SELECT ` + sqlReasons + ` AS reasons) rs`

// sqlDismissed is true when reasons apply and the live dismissal covers every one of them.
const sqlDismissed = `(cardinality(rs.reasons) > 0 AND d.dismissed_reasons IS NOT NULL AND rs.reasons <@ d.dismissed_reasons::text[])`

// sqlNeedsAdmin is true when an escalating reason applies and the row is not dismissed.
var sqlNeedsAdmin = `(rs.reasons && ` + sqlEscalating + ` AND NOT ` + sqlDismissed + `)`
