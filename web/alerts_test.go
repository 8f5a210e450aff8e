package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/web"
)

// fire makes alerts fire as an evaluation would, without mail.
func (b *testBundle) fire(t *testing.T, at time.Time, alerts ...schedule.Alert) {
	t.Helper()
	ctx := context.Background()
	tx, err := b.store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.AlertApply(ctx, at, alerts); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestBannerShowsWhatConcernsThePerson: support's banner shows the global alerts, most severe
// first, each linking to its fixing view with alerted_at; a teacher's only their course's.
func TestBannerShowsWhatConcernsThePerson(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) { d.AlertsTTL = time.Nanosecond })
	b.fire(t, testNow.Add(-time.Hour),
		schedule.Alert{Rule: schedule.RulePipelineIdle, Severity: schedule.SeverityWarning, Count: 30, Path: "/?show=all&state=ready_to_submit"},
		schedule.Alert{Rule: schedule.RuleCredentialsRejected, Severity: schedule.SeverityCritical, Count: 2, Path: "/?show=all&error=unauthorized"},
		schedule.Alert{Rule: schedule.RuleCourseNeedsPerson, Key: b.course.ID, Severity: schedule.SeverityInfo, Count: 3,
			Subject: "Ohjelmoinnin perusteet", CourseID: b.course.ID, Path: "/courses/" + b.course.ID},
	)
	_, body := b.get(t, "/registrations/"+b.dense, false)
	crit := strings.Index(body, `data-severity="critical"`)
	warn := strings.Index(body, `data-severity="warning"`)
	if !strings.Contains(body, `data-testid="health-banner"`) || crit < 0 || warn < 0 || crit > warn {
		t.Fatalf("support's banner lacks the alerts, most severe first:\n%s", body)
	}
	if strings.Contains(body, "Course needs a person") {
		t.Error("support's banner shows a course's alert")
	}
	firedAt := url.QueryEscape(testNow.Add(-time.Hour).UTC().Format(time.RFC3339))
	if !strings.Contains(body, `href="/?alerted_at=`+firedAt+`&amp;error=unauthorized&amp;show=all"`) {
		t.Errorf("the banner's link lacks the fixing view with alerted_at:\n%s", body)
	}

	_, body = b.getWith(t, b.login(t, b.teacher), "/courses", false)
	if !strings.Contains(body, "Course needs a person") || strings.Contains(body, "Credentials rejected") || strings.Contains(body, "Pipeline idle") {
		t.Errorf("the teacher's banner must show only their course's alert:\n%s", body)
	}
}

// TestAlertsPageSaysWhatFiredAndThatMailIsOff: /alerts lists what fires and what cleared, says
// nobody is mailed without SMTP, and records who acknowledged an alert.
func TestAlertsPageSaysWhatFiredAndThatMailIsOff(t *testing.T) {
	t.Parallel()
	b := setup(t)
	idle := schedule.Alert{Rule: schedule.RulePipelineIdle, Severity: schedule.SeverityWarning, Count: 30, Path: "/"}
	b.fire(t, testNow.Add(-10*time.Hour), idle, schedule.Alert{Rule: schedule.RuleCredentialsRejected, Severity: schedule.SeverityCritical, Count: 1, Path: "/"})
	b.fire(t, testNow.Add(-9*time.Hour), idle)
	_, body := b.get(t, "/alerts", false)
	for _, want := range []string{`data-mailing="false"`, "SMTP_URL is not set", `data-testid="alerts-firing-item"`, "Pipeline idle", `data-testid="alerts-history-row"`} {
		if !strings.Contains(body, want) {
			t.Errorf("/alerts lacks %q", want)
		}
	}
	if n := strings.Count(body, `data-testid="alerts-history-row"`); n != 2 {
		t.Errorf("history rows = %d, want 2 (one firing, one cleared)", n)
	}
	firing, err := b.store.AlertListFiring(context.Background())
	if err != nil || len(firing) != 1 {
		t.Fatalf("firing = %v, %v", firing, err)
	}
	resp, _ := b.postForm(t, b.client, "/alerts/"+firing[0].ID+"/acknowledge", url.Values{"note": {"looking into it"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("acknowledge = %d", resp.StatusCode)
	}
	got, err := b.store.AlertGet(context.Background(), firing[0].ID)
	if err != nil || got.AcknowledgedBy == nil || *got.AcknowledgedBy != b.support.Name {
		t.Fatalf("acknowledged = %+v, %v", got, err)
	}
	resp, _ = b.postForm(t, b.client, "/alerts/"+firing[0].ID+"/acknowledge", url.Values{})
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("a second acknowledgement = %d, want 409", resp.StatusCode)
	}
}

// TestSettingsSaveMailChoices: the defaults show until saved; a save is recorded with who and
// when; a choice regdesk does not offer changes nothing.
func TestSettingsSaveMailChoices(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, body := b.get(t, "/settings", false)
	if !strings.Contains(body, `data-testid="settings-mail-defaults"`) || !strings.Contains(body, `<option value="critical" selected`) {
		t.Fatalf("support's settings do not show the defaults (critical at once):\n%s", body)
	}
	resp, _ := b.postForm(t, b.client, "/settings/mail", url.Values{"immediate": {"loud"}})
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a bad severity = %d, want 422", resp.StatusCode)
	}
	if set, _ := b.store.AlertSettingsGet(ctx, b.support.ID); set.Saved {
		t.Fatal("a refused form saved settings")
	}
	resp, _ = b.postForm(t, b.client, "/settings/mail", url.Values{"immediate": {"warning"}, "kind": {"sisu_unavailable", "pipeline_idle"},
		"digest": {"1"}, "digest_hour": {"7"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save = %d", resp.StatusCode)
	}
	set, err := b.store.AlertSettingsGet(ctx, b.support.ID)
	if err != nil || !set.Saved || set.ImmediateMin != schedule.SeverityWarning || len(set.Rules) != 2 || set.DigestHour == nil || *set.DigestHour != 7 {
		t.Fatalf("saved = %+v, %v", set, err)
	}
	var changes int
	if err := b.store.Pool().QueryRow(ctx, `SELECT count(*) FROM alert_setting_changes WHERE account_id = $1 AND changed_by = $1 AND changed_at = $2`,
		b.support.ID, testNow).Scan(&changes); err != nil || changes != 1 {
		t.Errorf("changes recorded = %d, %v; want 1", changes, err)
	}
	_, body = b.get(t, "/settings", false)
	if !strings.Contains(body, `<option value="warning" selected`) || !strings.Contains(body, `value="7" selected`) {
		t.Errorf("the saved settings do not show")
	}
}
