package schedule

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// The health rules: the LMS's alerts (health.rs and domain.md §9.1) that the ledger can support,
// with its ids, thresholds and severities, and regdesk's own about rows that need a person.
// Evaluate is a pure function of counted facts and now; store/alert.go counts the facts over the
// windows named here, so no number is written twice.

// Severity orders alerts: SeverityInfo < SeverityWarning < SeverityCritical.
type Severity int

// The severities, least severe first, as the LMS has them.
const (
	SeverityInfo Severity = iota + 1
	SeverityWarning
	SeverityCritical
)

// Severities lists the severities, least severe first.
func Severities() []Severity { return []Severity{SeverityInfo, SeverityWarning, SeverityCritical} }

// String is the severity's wire name: "info", "warning" or "critical".
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityCritical:
		return "critical"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity reads a severity's wire name.
func ParseSeverity(v string) (Severity, error) {
	for _, s := range Severities() {
		if strings.EqualFold(strings.TrimSpace(v), s.String()) {
			return s, nil
		}
	}
	return 0, &ParseError{Kind: "severity", Input: v, Valid: []string{"info", "warning", "critical"}}
}

// AlertRule is a health rule's id, the LMS's where the LMS has the rule.
type AlertRule string

// The rules. The first nine are the LMS's, then four of regdesk's own about rows, the LMS's
// phase_heartbeat_stale, and regdesk's own about what an admin paused.
const (
	RuleCredentialsRejected           AlertRule = "credentials_rejected"
	RuleStudyRegistryUnreachable      AlertRule = "study_registry_unreachable"
	RuleSisuUnavailable               AlertRule = "sisu_unavailable"
	RuleStuckRegistrations            AlertRule = "stuck_registrations"
	RulePermanentFailuresAccumulating AlertRule = "permanent_failures_accumulating"
	RuleMisregistrationsDetected      AlertRule = "misregistrations_detected"
	RulePipelineIdle                  AlertRule = "pipeline_idle"
	RuleCompletionsNeverEntered       AlertRule = "completions_never_entered"
	RuleConfirmationLatencyRegressed  AlertRule = "confirmation_latency_regressed"
	// RuleNeedsPerson is rows on the needs-a-person list (StandingNeedsAttention), one alert per
	// person-level reason they carry.
	RuleNeedsPerson AlertRule = "needs_person"
	// RuleEscalatingSoon is rows not on the needs-a-person list that will escalate (Classify's
	// EscalatesAt) in the next EscalatingSoonWindow.
	RuleEscalatingSoon AlertRule = "escalating_soon"
	// RuleUncertainAwaitingLookup is uncertain rows nobody has looked up in Sisu since they were
	// sent.
	RuleUncertainAwaitingLookup AlertRule = "uncertain_awaiting_lookup"
	// RuleCourseNeedsPerson is one course's rows that need a person: what a teacher's banner shows.
	RuleCourseNeedsPerson AlertRule = "course_needs_person"
	// RulePhaseHeartbeatStale is the LMS's phase_heartbeat_stale: running phases whose heartbeat is
	// late (HeartbeatLate).
	RulePhaseHeartbeatStale AlertRule = "phase_heartbeat_stale"
	// RulePhasePaused is one pipeline phase an admin paused: the rows in the states it owns wait
	// until it is resumed. The LMS's attention standing counts it as a blocking problem
	// (processing_phase_stopped); its own alert fires only when every phase is paused.
	RulePhasePaused AlertRule = "phase_paused"
	// RuleModulePaused is one course module an admin paused: no phase touches its registrations.
	RuleModulePaused AlertRule = "module_paused"
)

var alertRules = newEnumTable("alert kind",
	RuleCredentialsRejected,
	RuleStudyRegistryUnreachable,
	RuleSisuUnavailable,
	RuleStuckRegistrations,
	RulePermanentFailuresAccumulating,
	RuleMisregistrationsDetected,
	RulePipelineIdle,
	RuleCompletionsNeverEntered,
	RuleConfirmationLatencyRegressed,
	RuleNeedsPerson,
	RuleEscalatingSoon,
	RuleUncertainAwaitingLookup,
	RuleCourseNeedsPerson,
	RulePhaseHeartbeatStale,
	RulePhasePaused,
	RuleModulePaused,
)

// AlertRules lists every rule, the LMS's first.
func AlertRules() []AlertRule { return alertRules.list() }

// ParseAlertRule reads a rule id.
func ParseAlertRule(s string) (AlertRule, error) { return alertRules.parse(s) }

// Valid reports whether r is one of the rules.
func (r AlertRule) Valid() bool { return alertRules.valid(r) }

// The LMS's windows and thresholds (domain.md §9.1, health.rs).
const (
	// CredentialRejectionWindow: within this much of the past, one rejected credential is enough.
	CredentialRejectionWindow = time.Hour
	// UnreachableWindow and UnreachableConsecutive: this many unreachable calls in a row within the
	// window; fewer is a bad minute rather than an outage.
	UnreachableWindow      = 15 * time.Minute
	UnreachableConsecutive = 3
	// SisuWindow, SisuMinItems, SisuBlamedPercent: at least this share of at least this many items
	// answered within the window failed on Sisu's side.
	SisuWindow        = 15 * time.Minute
	SisuMinItems      = 10
	SisuBlamedPercent = 30
	// StuckCriticalCount: above this many stuck rows, or any row past StuckSevereFactor times its
	// threshold, the backlog stops being something to look at tomorrow.
	StuckCriticalCount = 50
	StuckSevereFactor  = 3
	// PermanentFailureWindow, PermanentFailureCount, PermanentFailureMinTerminal,
	// PermanentFailurePercent: in the window, this many failed_permanent rows, or more than this
	// share of at least that many rows that ended.
	PermanentFailureWindow      = 24 * time.Hour
	PermanentFailureCount       = 20
	PermanentFailureMinTerminal = 20
	PermanentFailurePercent     = 10
	// MisregistrationWindow, MisregistrationCritical: any misregistration in the window warns;
	// this many is critical.
	MisregistrationWindow   = 24 * time.Hour
	MisregistrationCritical = 5
	// IdleWindow, IdleQueued: nothing finished within the window while more than this many rows
	// wait in ready_to_submit and awaiting_verification.
	IdleWindow = 24 * time.Hour
	IdleQueued = 20
	// CompletionEntryGrace, CompletionSample: an eligible completion older than this without a
	// registration row; the LMS samples at most this many.
	CompletionEntryGrace = 6 * time.Hour
	CompletionSample     = 100
	// LatencyWeek, LatencyFactor, LatencyMinimum: the p95 of registered_at − submitted_at over the
	// last week is more than this factor of the week before, and at least the minimum.
	LatencyWeek    = 7 * 24 * time.Hour
	LatencyFactor  = 2
	LatencyMinimum = 6 * time.Hour
	// EscalatingSoonWindow is how far ahead regdesk's escalating_soon looks.
	EscalatingSoonWindow = 24 * time.Hour
)

// Occurrences is how often something happened in a rule's window, and when last.
type Occurrences struct {
	Count  int
	LastAt *time.Time
}

// StuckCount is the rows of one state past StuckThreshold (ReasonStuckInState): how many, and since when the oldest
// has been in it (state_changed_at).
type StuckCount struct {
	State  State
	Count  int
	Oldest time.Time
}

// ReasonCount is how many rows need a person for one reason.
type ReasonCount struct {
	Reason Reason
	Count  int
}

// CourseCount is how many of one course's rows need a person.
type CourseCount struct {
	CourseID   string
	CourseName string
	Count      int
}

// HealthFacts are the counts the rules read, each over the window its rule names; the store
// counts them in one snapshot.
type HealthFacts struct {
	// CredentialRejections are Suotar answers rejecting our credentials within
	// CredentialRejectionWindow.
	CredentialRejections Occurrences
	// UnreachableRun is the run of consecutive unreachable calls, newest first, within
	// UnreachableWindow: it ends at the newest call that got an answer.
	UnreachableRun Occurrences
	// SisuItems are the items Suotar answered within SisuWindow; SisuBlamed those of them that
	// failed on Sisu's side (sisu_timeout, service_temporarily_unavailable).
	SisuItems  int
	SisuBlamed int
	// Stuck is the rows past their state's stuck threshold, per state.
	Stuck []StuckCount
	// Terminal is the rows that ended within PermanentFailureWindow; FailedPermanent those of them
	// that failed for good.
	Terminal        int
	FailedPermanent int
	// Misregistrations are rows Sisu reversed within MisregistrationWindow.
	Misregistrations Occurrences
	// Finished is the rows that ended within IdleWindow; Queued the rows in ready_to_submit and
	// awaiting_verification now.
	Finished int
	Queued   int
	// CompletionsNeverEntered is eligible completions older than CompletionEntryGrace without a
	// registration row, counted up to CompletionSample.
	CompletionsNeverEntered int
	// LatencyThisWeek and LatencyLastWeek are the p95 of registered_at − submitted_at over the last
	// LatencyWeek and the one before; nil when nothing registered in that week.
	LatencyThisWeek, LatencyLastWeek *time.Duration
	// NeedsPerson is the rows on the needs-a-person list (StandingNeedsAttention), per reason they
	// carry.
	NeedsPerson []ReasonCount
	// EscalationsAt are the instants after now at which rows not yet needing a person will
	// escalate, as Classify's EscalatesAt has them.
	EscalationsAt []time.Time
	// UncertainNotLookedUp is uncertain rows without a Sisu lookup since submitted_at; its LastAt
	// the oldest submission among them.
	UncertainNotLookedUp Occurrences
	// Courses are the courses with rows on the needs-a-person list.
	Courses []CourseCount
	// Phases are the pipeline's phases as the LMS keeps them.
	Phases []PhaseFact
	// PausedModules are the course modules an admin paused.
	PausedModules []PausedModuleFact
}

// PhaseFact is one pipeline phase as credit_registration_phase_state has it.
type PhaseFact struct {
	Phase            string
	ExpectedInterval time.Duration
	LastHeartbeatAt  *time.Time
	// PausedAt is set while the phase is paused; Held then counts the rows waiting in the states
	// it owns (PhaseOwnedStates).
	PausedAt *time.Time
	Held     int
}

// PausedModuleFact is one paused course module.
type PausedModuleFact struct {
	ModuleID string
	// Label names the module for people: its course, and its name unless it is the default one.
	Label    string
	PausedAt time.Time
	// Held counts its unfinished registrations.
	Held int
}

// Alert is one thing the rules found. An alert is the same alert from one evaluation to the next
// while its Rule and Key are: a changing count or subject is the same alert, still firing.
type Alert struct {
	Rule AlertRule
	// Key tells apart alerts of one rule: the reason of needs_person, the course of
	// course_needs_person; "" for the rest.
	Key      string
	Severity Severity
	// Count is how many rows, calls or items the rule found; Of the whole it is a share of, when
	// it is one (0 otherwise).
	Count int
	Of    int
	// At is when it last happened, or since when the oldest has waited, where the rule has an
	// instant to point at.
	At *time.Time
	// Subject names what to act on: the worst state, the reason, the course. Never a sentence.
	Subject string
	// CourseID is set on alerts that concern one course: teachers of it see them.
	CourseID string
	// Path is the view that fixes it, a path with a query on this site: for a rule that counts rows,
	// the queue filtered to exactly the rows it counted (escalates=1d, lookup=none, ended=1d and
	// misregistered=1d are the queue's filters for four of them); for a rule that counts calls,
	// answers, completions or time, the page of what it counted (CountedPath); for a phase or a
	// module, the System page.
	Path string
}

// Identity is the alert's Rule and Key as one string: "needs_person/outcome_uncertain".
func (a Alert) Identity() string {
	if a.Key == "" {
		return string(a.Rule)
	}
	return string(a.Rule) + "/" + a.Key
}

// AlertChange is what one evaluation did to an alert, and so what its mail says.
type AlertChange string

const (
	// AlertFired: the alert was not firing and now is.
	AlertFired AlertChange = "fired"
	// AlertCleared: the alert was firing and the rules no longer find it.
	AlertCleared AlertChange = "cleared"
	// AlertRose: still firing, at a severity above the worst it had reached.
	AlertRose AlertChange = "rose"
	// AlertReminder: still firing a day after it fired or last reminded.
	AlertReminder AlertChange = "reminder"
)

// SystemPath is the System page, where the pipeline's phases and paused modules are shown and
// controlled.
const SystemPath = "/system"

// CountedPath is the page of what an alert counted, for the rules that count Suotar's calls and
// answers, completions or time rather than rows of the ledger: their number stands on top of it
// and the things counted below, and RowsPath is one step further.
func CountedPath(rule AlertRule) string { return "/alerts/counted/" + string(rule) }

// RowsPath is the list of registrations what rule counts bears on, for the rules CountedPath
// serves: the rows refused for our credentials, those backing off after unreachable calls, those
// Sisu timed out on, the courses (whose pages show completions without a row), the rows waiting
// for Sisu's confirmation. "" for any other rule.
func RowsPath(rule AlertRule) string {
	switch rule {
	case RuleCredentialsRejected:
		return queuePath("all", "error", string(ErrorUnauthorized))
	case RuleStudyRegistryUnreachable:
		return queuePath("all", "phase", string(PhaseSubmitBackoff))
	case RuleSisuUnavailable:
		return queuePath("all", "error", string(ErrorSisuTimeout))
	case RuleCompletionsNeverEntered:
		return "/courses"
	case RuleConfirmationLatencyRegressed:
		return queuePath("all", "state", string(StateAwaitingVerification))
	}
	return ""
}

// heldPath is the list of the rows a paused phase holds (the states it owns, as Held counts them),
// so the alert opens what it counted; the System page, where the phase is resumed, for a phase
// that owns no state.
func heldPath(phase string) string {
	owned := PhaseOwnedStates(phase)
	if len(owned) == 0 {
		return SystemPath
	}
	var pairs []string
	for _, st := range owned {
		pairs = append(pairs, "state", string(st))
	}
	return queuePath("all", pairs...)
}

func queuePath(show string, pairs ...string) string {
	v := url.Values{}
	v.Set("show", show)
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Add(pairs[i], pairs[i+1])
	}
	return "/?" + v.Encode()
}

// Evaluate runs every rule on facts counted at now and returns what fires, most severe first
// and a rejected credential first of all (nothing registers until it is fixed), then by rule and
// key.
func Evaluate(f HealthFacts, now time.Time) []Alert {
	var out []Alert
	add := func(a Alert) { out = append(out, a) }

	if f.CredentialRejections.Count > 0 {
		add(Alert{Rule: RuleCredentialsRejected, Severity: SeverityCritical, Count: f.CredentialRejections.Count,
			At: f.CredentialRejections.LastAt, Subject: string(ErrorUnauthorized), Path: CountedPath(RuleCredentialsRejected)})
	}
	if f.UnreachableRun.Count >= UnreachableConsecutive {
		add(Alert{Rule: RuleStudyRegistryUnreachable, Severity: SeverityCritical, Count: f.UnreachableRun.Count,
			At: f.UnreachableRun.LastAt, Subject: string(ErrorTransportError), Path: CountedPath(RuleStudyRegistryUnreachable)})
	}
	// ≥ 30 % of ≥ 10 items, in integers: blamed × 100 ≥ 30 × items.
	if f.SisuItems >= SisuMinItems && f.SisuBlamed*100 >= SisuBlamedPercent*f.SisuItems {
		add(Alert{Rule: RuleSisuUnavailable, Severity: SeverityCritical, Count: f.SisuBlamed, Of: f.SisuItems,
			Subject: string(ErrorSisuTimeout), Path: CountedPath(RuleSisuUnavailable)})
	}
	if a, ok := stuckAlert(f.Stuck, now); ok {
		add(a)
	}
	if f.FailedPermanent >= PermanentFailureCount ||
		(f.Terminal >= PermanentFailureMinTerminal && f.FailedPermanent*100 > PermanentFailurePercent*f.Terminal) {
		add(Alert{Rule: RulePermanentFailuresAccumulating, Severity: SeverityWarning, Count: f.FailedPermanent, Of: f.Terminal,
			Subject: string(StateFailedPermanent), Path: queuePath("all", "state", string(StateFailedPermanent), "ended", "1d")})
	}
	if m := f.Misregistrations; m.Count > 0 {
		sev := SeverityWarning
		if m.Count >= MisregistrationCritical {
			sev = SeverityCritical
		}
		add(Alert{Rule: RuleMisregistrationsDetected, Severity: sev, Count: m.Count, At: m.LastAt,
			Subject: string(StateMisregistered), Path: queuePath("all", "misregistered", "1d")})
	}
	if f.Finished == 0 && f.Queued > IdleQueued {
		add(Alert{Rule: RulePipelineIdle, Severity: SeverityWarning, Count: f.Queued,
			Path: queuePath("all", "state", string(StateReadyToSubmit), "state", string(StateAwaitingVerification))})
	}
	if f.CompletionsNeverEntered > 0 {
		add(Alert{Rule: RuleCompletionsNeverEntered, Severity: SeverityWarning, Count: min(f.CompletionsNeverEntered, CompletionSample),
			Path: CountedPath(RuleCompletionsNeverEntered)})
	}
	if cur, prev := f.LatencyThisWeek, f.LatencyLastWeek; cur != nil && prev != nil &&
		*cur > LatencyFactor**prev && *cur >= LatencyMinimum {
		add(Alert{Rule: RuleConfirmationLatencyRegressed, Severity: SeverityInfo, Count: int(cur.Minutes()), Of: int(prev.Minutes()),
			Subject: cur.Truncate(time.Minute).String(), Path: CountedPath(RuleConfirmationLatencyRegressed)})
	}
	for _, rc := range f.NeedsPerson {
		if rc.Count > 0 && rc.Reason.PersonLevel() {
			add(Alert{Rule: RuleNeedsPerson, Key: string(rc.Reason), Severity: SeverityWarning, Count: rc.Count,
				Subject: string(rc.Reason), Path: queuePath("needs_admin", "reason", string(rc.Reason))})
		}
	}
	soon := 0
	var first *time.Time
	for _, at := range f.EscalationsAt {
		if at.After(now) && !at.After(now.Add(EscalatingSoonWindow)) {
			soon++
			if first == nil || at.Before(*first) {
				t := at
				first = &t
			}
		}
	}
	if soon > 0 {
		add(Alert{Rule: RuleEscalatingSoon, Severity: SeverityInfo, Count: soon, At: first, Path: queuePath("all", "escalates", "1d")})
	}
	if u := f.UncertainNotLookedUp; u.Count > 0 {
		add(Alert{Rule: RuleUncertainAwaitingLookup, Severity: SeverityWarning, Count: u.Count, At: u.LastAt,
			Subject: string(StateSubmissionUncertain), Path: queuePath("all", "state", string(StateSubmissionUncertain), "lookup", "none")})
	}
	for _, c := range f.Courses {
		if c.Count > 0 {
			add(Alert{Rule: RuleCourseNeedsPerson, Key: c.CourseID, Severity: SeverityInfo, Count: c.Count,
				Subject: c.CourseName, CourseID: c.CourseID, Path: queuePath("needs_admin", "course", c.CourseID)})
		}
	}
	var stale []string
	for _, p := range f.Phases {
		if p.PausedAt != nil {
			at := *p.PausedAt
			add(Alert{Rule: RulePhasePaused, Key: p.Phase, Severity: SeverityWarning, Count: p.Held, At: &at,
				Subject: p.Phase, Path: heldPath(p.Phase)})
			continue
		}
		if HeartbeatLate(p.LastHeartbeatAt, p.ExpectedInterval, false, now) {
			stale = append(stale, p.Phase)
		}
	}
	if len(stale) > 0 {
		// The LMS names the first stale phase; it counts them of every phase.
		add(Alert{Rule: RulePhaseHeartbeatStale, Severity: SeverityCritical, Count: len(stale), Of: len(f.Phases),
			Subject: stale[0], Path: SystemPath})
	}
	for _, m := range f.PausedModules {
		at := m.PausedAt
		add(Alert{Rule: RuleModulePaused, Key: m.ModuleID, Severity: SeverityWarning, Count: m.Held, At: &at,
			Subject: m.Label, Path: SystemPath})
	}
	SortAlerts(out)
	return out
}

// SortAlerts orders alerts most severe first, a rejected credential first of all, then by rule
// in AlertRules order and by key.
func SortAlerts(as []Alert) {
	slices.SortStableFunc(as, func(a, b Alert) int {
		if c := cmp.Compare(b.Severity, a.Severity); c != 0 {
			return c
		}
		if ac, bc := a.Rule == RuleCredentialsRejected, b.Rule == RuleCredentialsRejected; ac != bc {
			if ac {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(alertRules.position(a.Rule), alertRules.position(b.Rule)); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
}

// stuckAlert: critical when more than StuckCriticalCount rows are stuck or any has been in its
// state more than StuckSevereFactor times its threshold; the subject is the state with the most.
func stuckAlert(stuck []StuckCount, now time.Time) (Alert, bool) {
	total, severe := 0, false
	var worst *StuckCount
	for i, s := range stuck {
		if s.Count <= 0 {
			continue
		}
		total += s.Count
		if th, ok := StuckThreshold(s.State); ok && now.Sub(s.Oldest) > StuckSevereFactor*th {
			severe = true
		}
		if worst == nil || s.Count > worst.Count {
			worst = &stuck[i]
		}
	}
	if total == 0 {
		return Alert{}, false
	}
	sev := SeverityWarning
	if total > StuckCriticalCount || severe {
		sev = SeverityCritical
	}
	oldest := worst.Oldest
	return Alert{Rule: RuleStuckRegistrations, Severity: sev, Count: total, At: &oldest, Subject: string(worst.State),
		Path: queuePath("all", "reason", string(ReasonStuckInState))}, true
}
