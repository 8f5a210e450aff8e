package schedule_test

import (
	"testing"
	"time"

	"regdesk/schedule"
)

// fired returns the alert of rule in as, if one fired.
func fired(as []schedule.Alert, rule schedule.AlertRule) (schedule.Alert, bool) {
	for _, a := range as {
		if a.Rule == rule {
			return a, true
		}
	}
	return schedule.Alert{}, false
}

func dur(d time.Duration) *time.Duration { return &d }

// TestEvaluateThresholds puts every rule on both sides of each of its thresholds, at two
// instants, so a rule that reads the clock, or an off-by-one at a threshold, shows.
func TestEvaluateThresholds(t *testing.T) {
	t.Parallel()
	for _, now := range []time.Time{
		time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
		time.Date(2031, 6, 14, 21, 45, 0, 0, time.UTC),
	} {
		last := now.Add(-time.Minute)
		stuck := func(state schedule.State, n int, inStateFor time.Duration) schedule.HealthFacts {
			return schedule.HealthFacts{Stuck: []schedule.StuckCount{{State: state, Count: n, Oldest: now.Add(-inStateFor)}}}
		}
		ready, _ := schedule.StuckThreshold(schedule.StateReadyToSubmit)
		cases := []struct {
			name  string
			facts schedule.HealthFacts
			rule  schedule.AlertRule
			want  schedule.Severity // 0: must not fire
		}{
			{"no credential rejection", schedule.HealthFacts{}, schedule.RuleCredentialsRejected, 0},
			{"one credential rejection", schedule.HealthFacts{CredentialRejections: schedule.Occurrences{Count: 1, LastAt: &last}}, schedule.RuleCredentialsRejected, schedule.SeverityCritical},

			{"2 unreachable calls in a row", schedule.HealthFacts{UnreachableRun: schedule.Occurrences{Count: 2, LastAt: &last}}, schedule.RuleStudyRegistryUnreachable, 0},
			{"3 unreachable calls in a row", schedule.HealthFacts{UnreachableRun: schedule.Occurrences{Count: 3, LastAt: &last}}, schedule.RuleStudyRegistryUnreachable, schedule.SeverityCritical},

			{"9 items, all blamed on Sisu", schedule.HealthFacts{SisuItems: 9, SisuBlamed: 9}, schedule.RuleSisuUnavailable, 0},
			{"10 items, 2 blamed (20 %)", schedule.HealthFacts{SisuItems: 10, SisuBlamed: 2}, schedule.RuleSisuUnavailable, 0},
			{"10 items, 3 blamed (30 %)", schedule.HealthFacts{SisuItems: 10, SisuBlamed: 3}, schedule.RuleSisuUnavailable, schedule.SeverityCritical},
			{"1000 items, 299 blamed (29.9 %)", schedule.HealthFacts{SisuItems: 1000, SisuBlamed: 299}, schedule.RuleSisuUnavailable, 0},
			{"1000 items, 300 blamed", schedule.HealthFacts{SisuItems: 1000, SisuBlamed: 300}, schedule.RuleSisuUnavailable, schedule.SeverityCritical},

			{"nothing stuck", schedule.HealthFacts{}, schedule.RuleStuckRegistrations, 0},
			{"one stuck row", stuck(schedule.StateReadyToSubmit, 1, ready+time.Minute), schedule.RuleStuckRegistrations, schedule.SeverityWarning},
			{"50 stuck rows", stuck(schedule.StateReadyToSubmit, 50, ready+time.Minute), schedule.RuleStuckRegistrations, schedule.SeverityWarning},
			{"51 stuck rows", stuck(schedule.StateReadyToSubmit, 51, ready+time.Minute), schedule.RuleStuckRegistrations, schedule.SeverityCritical},
			{"one row at 3× its threshold", stuck(schedule.StateReadyToSubmit, 1, 3*ready), schedule.RuleStuckRegistrations, schedule.SeverityWarning},
			{"one row past 3× its threshold", stuck(schedule.StateReadyToSubmit, 1, 3*ready+time.Second), schedule.RuleStuckRegistrations, schedule.SeverityCritical},

			{"19 permanent failures of 1000", schedule.HealthFacts{FailedPermanent: 19, Terminal: 1000}, schedule.RulePermanentFailuresAccumulating, 0},
			{"20 permanent failures of 1000", schedule.HealthFacts{FailedPermanent: 20, Terminal: 1000}, schedule.RulePermanentFailuresAccumulating, schedule.SeverityWarning},
			{"2 of 20 ended failed (10 %)", schedule.HealthFacts{FailedPermanent: 2, Terminal: 20}, schedule.RulePermanentFailuresAccumulating, 0},
			{"3 of 20 ended failed (15 %)", schedule.HealthFacts{FailedPermanent: 3, Terminal: 20}, schedule.RulePermanentFailuresAccumulating, schedule.SeverityWarning},
			{"5 of 19 ended failed (too few ended)", schedule.HealthFacts{FailedPermanent: 5, Terminal: 19}, schedule.RulePermanentFailuresAccumulating, 0},

			{"no misregistration", schedule.HealthFacts{}, schedule.RuleMisregistrationsDetected, 0},
			{"one misregistration", schedule.HealthFacts{Misregistrations: schedule.Occurrences{Count: 1, LastAt: &last}}, schedule.RuleMisregistrationsDetected, schedule.SeverityWarning},
			{"4 misregistrations", schedule.HealthFacts{Misregistrations: schedule.Occurrences{Count: 4, LastAt: &last}}, schedule.RuleMisregistrationsDetected, schedule.SeverityWarning},
			{"5 misregistrations", schedule.HealthFacts{Misregistrations: schedule.Occurrences{Count: 5, LastAt: &last}}, schedule.RuleMisregistrationsDetected, schedule.SeverityCritical},

			{"idle with 20 queued", schedule.HealthFacts{Queued: 20}, schedule.RulePipelineIdle, 0},
			{"idle with 21 queued", schedule.HealthFacts{Queued: 21}, schedule.RulePipelineIdle, schedule.SeverityWarning},
			{"one finished with 500 queued", schedule.HealthFacts{Queued: 500, Finished: 1}, schedule.RulePipelineIdle, 0},

			{"every completion entered", schedule.HealthFacts{}, schedule.RuleCompletionsNeverEntered, 0},
			{"one completion never entered", schedule.HealthFacts{CompletionsNeverEntered: 1}, schedule.RuleCompletionsNeverEntered, schedule.SeverityWarning},

			{"latency exactly doubled", schedule.HealthFacts{LatencyThisWeek: dur(8 * time.Hour), LatencyLastWeek: dur(4 * time.Hour)}, schedule.RuleConfirmationLatencyRegressed, 0},
			{"latency more than doubled", schedule.HealthFacts{LatencyThisWeek: dur(8*time.Hour + time.Second), LatencyLastWeek: dur(4 * time.Hour)}, schedule.RuleConfirmationLatencyRegressed, schedule.SeverityInfo},
			{"latency tripled but under 6 h", schedule.HealthFacts{LatencyThisWeek: dur(6*time.Hour - time.Second), LatencyLastWeek: dur(time.Hour)}, schedule.RuleConfirmationLatencyRegressed, 0},
			{"latency tripled to 6 h", schedule.HealthFacts{LatencyThisWeek: dur(6 * time.Hour), LatencyLastWeek: dur(time.Hour)}, schedule.RuleConfirmationLatencyRegressed, schedule.SeverityInfo},
			{"no registrations last week", schedule.HealthFacts{LatencyThisWeek: dur(48 * time.Hour)}, schedule.RuleConfirmationLatencyRegressed, 0},

			{"nobody needs a person", schedule.HealthFacts{NeedsPerson: []schedule.ReasonCount{{Reason: schedule.ReasonOutcomeUncertain}}}, schedule.RuleNeedsPerson, 0},
			{"one row needs a person", schedule.HealthFacts{NeedsPerson: []schedule.ReasonCount{{Reason: schedule.ReasonOutcomeUncertain, Count: 1}}}, schedule.RuleNeedsPerson, schedule.SeverityWarning},
			{"stuck in state asks nobody", schedule.HealthFacts{NeedsPerson: []schedule.ReasonCount{{Reason: schedule.ReasonStuckInState, Count: 9}}}, schedule.RuleNeedsPerson, 0},

			{"escalates at now", schedule.HealthFacts{EscalationsAt: []time.Time{now}}, schedule.RuleEscalatingSoon, 0},
			{"escalates just after now", schedule.HealthFacts{EscalationsAt: []time.Time{now.Add(time.Microsecond)}}, schedule.RuleEscalatingSoon, schedule.SeverityInfo},
			{"escalates in exactly 24 h", schedule.HealthFacts{EscalationsAt: []time.Time{now.Add(24 * time.Hour)}}, schedule.RuleEscalatingSoon, schedule.SeverityInfo},
			{"escalates just after 24 h", schedule.HealthFacts{EscalationsAt: []time.Time{now.Add(24*time.Hour + time.Microsecond)}}, schedule.RuleEscalatingSoon, 0},

			{"every uncertain row looked up", schedule.HealthFacts{}, schedule.RuleUncertainAwaitingLookup, 0},
			{"one uncertain row not looked up", schedule.HealthFacts{UncertainNotLookedUp: schedule.Occurrences{Count: 1, LastAt: &last}}, schedule.RuleUncertainAwaitingLookup, schedule.SeverityWarning},

			{"a course with nothing", schedule.HealthFacts{Courses: []schedule.CourseCount{{CourseID: "c1", CourseName: "Java"}}}, schedule.RuleCourseNeedsPerson, 0},
			{"a course with one row", schedule.HealthFacts{Courses: []schedule.CourseCount{{CourseID: "c1", CourseName: "Java", Count: 1}}}, schedule.RuleCourseNeedsPerson, schedule.SeverityInfo},
		}
		for _, c := range cases {
			a, ok := fired(schedule.Evaluate(c.facts, now), c.rule)
			switch {
			case c.want == 0 && ok:
				t.Errorf("%s at %s: %s fired (%s), want nothing", c.name, now, c.rule, a.Severity)
			case c.want != 0 && !ok:
				t.Errorf("%s at %s: %s did not fire, want %s", c.name, now, c.rule, c.want)
			case ok && a.Severity != c.want:
				t.Errorf("%s at %s: %s is %s, want %s", c.name, now, c.rule, a.Severity, c.want)
			}
			if ok && (a.Path == "" || a.Path[0] != '/' || !a.Rule.Valid()) {
				t.Errorf("%s: alert %+v lacks a path or a known rule", c.name, a)
			}
		}
	}
}

// TestEvaluateOrder: most severe first, a rejected credential first of all, and one
// needs_person alert per reason, each its own identity.
func TestEvaluateOrder(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	last := now.Add(-time.Minute)
	as := schedule.Evaluate(schedule.HealthFacts{
		UnreachableRun:          schedule.Occurrences{Count: 5, LastAt: &last},
		CredentialRejections:    schedule.Occurrences{Count: 1, LastAt: &last},
		CompletionsNeverEntered: 3,
		NeedsPerson: []schedule.ReasonCount{
			{Reason: schedule.ReasonOutcomeUncertain, Count: 2}, {Reason: schedule.ReasonPermanentError, Count: 1},
		},
		LatencyThisWeek: dur(10 * time.Hour), LatencyLastWeek: dur(time.Hour),
	}, now)
	var got []string
	for _, a := range as {
		got = append(got, a.Identity())
	}
	want := []string{"credentials_rejected", "study_registry_unreachable", "completions_never_entered",
		"needs_person/outcome_uncertain", "needs_person/permanent_error", "confirmation_latency_regressed"}
	if len(got) != len(want) {
		t.Fatalf("alerts = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("alerts = %q, want %q", got, want)
		}
	}
	if as[3].Path != "/?reason=outcome_uncertain&show=needs_admin" {
		t.Errorf("needs_person path = %q", as[3].Path)
	}
}

// TestStuckSubjectIsTheStateWithMost: the subject names the state holding the most stuck rows,
// and the count is the total.
func TestStuckSubjectIsTheStateWithMost(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	as := schedule.Evaluate(schedule.HealthFacts{Stuck: []schedule.StuckCount{
		{State: schedule.StateSubmitting, Count: 2, Oldest: now.Add(-20 * time.Minute)},
		{State: schedule.StateAwaitingVerification, Count: 7, Oldest: now.Add(-25 * time.Hour)},
	}}, now)
	a, ok := fired(as, schedule.RuleStuckRegistrations)
	if !ok || a.Subject != "awaiting_verification" || a.Count != 9 || a.Severity != schedule.SeverityWarning {
		t.Fatalf("stuck alert = %+v, %v", a, ok)
	}
	// The list behind it is every stuck row it counted, of every state (issue 27, defect 4).
	if a.Path != "/?reason=stuck_in_state&show=all" {
		t.Errorf("stuck alert path = %q", a.Path)
	}
}

func TestParseSeverity(t *testing.T) {
	t.Parallel()
	for _, s := range schedule.Severities() {
		got, err := schedule.ParseSeverity(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := schedule.ParseSeverity("loud"); err == nil {
		t.Error("ParseSeverity(loud) = nil error")
	}
}
