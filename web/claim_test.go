package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"regdesk/schedule"
	"regdesk/store/storetest"
	"regdesk/views"
	"regdesk/views/i18n"
)

func TestClaimShowsToOthersWhereverTheRowAppears(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	id := b.uncertainOverdue
	resp, _ := b.postForm(t, b.client, "/registrations/"+id+"/claim", url.Values{})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/registrations/"+id {
		t.Fatalf("claim: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	since := views.Clock(b.clock.Now())
	warning := "Sami Support has been on this since " + since + "."

	// Sami sees it is his; Aino is warned and offered to take it over, not stopped.
	_, page := b.getWith(t, b.client, "/registrations/"+id, false)
	if !strings.Contains(page, "You have been on this since "+since) || !strings.Contains(page, `data-testid="release-button"`) {
		t.Errorf("Sami's page does not show his claim")
	}
	_, page = b.getWith(t, admin, "/registrations/"+id, false)
	if !strings.Contains(page, warning) || !strings.Contains(page, "Take it over") {
		t.Errorf("Aino's registration page lacks %q", warning)
	}
	if !strings.Contains(page, `data-testid="actions"`) {
		t.Errorf("the claim hid the hand actions from Aino")
	}
	_, queue := b.getWith(t, admin, "/?show=all", false)
	if !strings.Contains(queue, `data-claimed="true" data-id="`+id+`"`) || !strings.Contains(queue, "Sami Support · ") {
		t.Errorf("Aino's queue does not show Sami on the row")
	}
	_, student := b.getWith(t, admin, "/students/"+b.anna.ID, false)
	if !strings.Contains(student, `title="`+warning+`"`) {
		t.Errorf("the student page does not show Sami on the row")
	}
	// Whose rows: Sami's "mine" holds it, Aino's does not; "unclaimed" leaves it out for both.
	for _, c := range []struct {
		client *http.Client
		query  string
		want   bool
	}{{b.client, "claimed=mine", true}, {admin, "claimed=mine", false}, {admin, "claimed=unclaimed", false}, {admin, "", true}} {
		_, body := b.getWith(t, c.client, "/?show=all&"+c.query, false)
		if got := strings.Contains(body, `data-id="`+id+`"`); got != c.want {
			t.Errorf("%s: row listed = %v, want %v", c.query, got, c.want)
		}
	}
	// Aino takes it over; the flash names whom from.
	resp, _ = b.postForm(t, admin, "/registrations/"+id+"/claim", url.Values{"reason": {"Sami is off today"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("take over: %d", resp.StatusCode)
	}
	_, page = b.getWith(t, admin, "/registrations/"+id, false)
	if !strings.Contains(page, "You took this registration over from Sami Support.") {
		t.Errorf("no flash naming Sami after the take-over")
	}
	// Left alone past the lapse, the claim stops showing.
	b.clock.Advance(4 * time.Hour)
	admin = b.login(t, b.admin) // the sessions idled out too
	_, page = b.getWith(t, admin, "/registrations/"+id, false)
	if !strings.Contains(page, "Nobody is on this registration.") {
		t.Errorf("a claim idle for 4 h still shows")
	}
	// Both claims are in the audit.
	_, audit := b.getWith(t, admin, "/audit?action=claim", false)
	if n := strings.Count(audit, `data-action="claim"`); n != 2 {
		t.Errorf("audit lists %d claims, want 2", n)
	}
}

func TestClaimInBulkFromTheQueue(t *testing.T) {
	t.Parallel()
	b := setup(t)
	resp, _ := b.postForm(t, b.client, "/bulk/claim", url.Values{"show": {"all"}, "select": {"ticked"},
		"id": {b.uncertainOverdue, b.permanent, storetest.NewID()}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/?show=all" {
		t.Fatalf("bulk claim: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, body := b.getWith(t, b.client, "/?show=all&claimed=mine", false)
	if !strings.Contains(body, "You are on 2 registrations.") {
		t.Errorf("no flash counting the claimed rows")
	}
	for _, id := range []string{b.uncertainOverdue, b.permanent} {
		if !strings.Contains(body, `data-id="`+id+`"`) {
			t.Errorf("row %s is not among mine", id)
		}
	}
	if strings.Contains(body, `data-id="`+b.dense+`"`) {
		t.Errorf("an unclaimed row is among mine")
	}
	// A teacher cannot claim.
	resp, _ = b.postForm(t, b.login(t, b.teacher), "/bulk/claim", url.Values{"id": {b.dense}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("teacher bulk claim: %d", resp.StatusCode)
	}
	resp, _ = b.postForm(t, b.client, "/bulk/claim", url.Values{"claimed": {"theirs"}})
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown claim filter: %d, want 400", resp.StatusCode)
	}
}

func TestQueueSortsByWaitingAndMarksOverdueRows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	old := storetest.AddRegistration(t, b.store, storetest.Registration{
		Student: b.anna, Course: b.course, State: "failed_permanent", ErrorCode: "course_not_allowed",
		NeedsAdminAttention: true, StateChangedAt: testNow.Add(-10 * 24 * time.Hour),
	})
	_, body := b.getWith(t, b.client, "/?show=needs_admin&sort=waiting", false)
	first, second := strings.Index(body, `data-id="`+old+`"`), strings.Index(body, `data-id="`+b.uncertainOverdue+`"`)
	third := strings.Index(body, `data-id="`+b.permanent+`"`)
	if first < 0 || second < 0 || third < 0 || !(first < second && second < third) {
		t.Errorf("waiting order: old %d, uncertain %d, permanent %d; want longest waiting first", first, second, third)
	}
	if !strings.Contains(body, "longest waiting first") {
		t.Errorf("the summary does not say the order")
	}
	row := body[first:]
	row = row[:strings.Index(row, "</tr>")]
	if !strings.Contains(row, `data-overdue="true"`) {
		t.Errorf("a row waiting 10 days is not marked overdue")
	}
	recent := body[third:]
	recent = recent[:strings.Index(recent, "</tr>")]
	if strings.Contains(recent, `data-overdue="true"`) || !strings.Contains(recent, `data-testid="waiting"`) {
		t.Errorf("a row waiting 3 hours: %s", recent)
	}
	wantOverdue := schedule.PastWaitingTarget(testNow.Add(-30*time.Hour), testNow, schedule.DefaultWaitingTarget)
	mid := body[second:]
	mid = mid[:strings.Index(mid, "</tr>")]
	if got := strings.Contains(mid, `data-overdue="true"`); got != wantOverdue {
		t.Errorf("a row waiting 30 h overdue = %v, want %v (working days from %v)", got, wantOverdue, testNow.Add(-30*time.Hour))
	}
	if resp, _ := b.getWith(t, b.client, "/?sort=oldest", false); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown sort: %d", resp.StatusCode)
	}
}

func TestBrowserClaimFromTheQueueShowsOnAnotherScreen(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sami := newTab(t)
	aino := newTab(t)
	row := `tr[data-id="` + b.permanent + `"]`
	sami.do(t,
		login(b.server.URL, b.support.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/?show=all"),
		chromedp.WaitVisible(chromedp.CSS(row)),
		chromedp.Click(chromedp.CSS(row+` [data-testid="select-row"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="bulk-claim"]`)),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-claimed="true"] [data-testid="claim"][data-mine="true"]`)),
	)
	aino.do(t,
		login(b.server.URL, b.admin.Email, testPassword),
		chromedp.Navigate(b.server.URL+"/?show=all"),
		chromedp.WaitVisible(chromedp.CSS(row+` [data-testid="claim"][data-mine="false"]`)),
	)
	if got := aino.text(t, row+` [data-testid="claim"]`); !strings.HasPrefix(got, "Sami Support · ") {
		t.Errorf("Aino's queue row shows %q", got)
	}
	aino.do(t,
		chromedp.Click(chromedp.CSS(row+` [data-testid="registration-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="claim-panel"][data-claimed="true"]`)),
	)
	if got := aino.text(t, `[data-testid="claim-words"]`); !strings.HasPrefix(got, "Sami Support has been on this since ") {
		t.Errorf("Aino's registration page says %q", got)
	}
}

func TestClaimAndAccountsSpeakThePersonsLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	if resp, _ := b.postForm(t, b.client, "/registrations/"+b.permanent+"/claim", url.Values{}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("claim: %d", resp.StatusCode)
	}
	for _, c := range []struct{ lang, claim, accounts, reason string }{
		{"fi", "Sami Support on käsitellyt tätä", "Lisää käyttäjätili", "Otan tämän hoitaakseni."},
		{"sv", "Sami Support har arbetat med den här sedan", "Lägg till ett konto", "Jag tar hand om den."},
		{"en", "Sami Support has been on this since", "Add an account", "I&#39;m on it."},
	} {
		// The claim's reason is regdesk's own: the audit says it in the reader's language.
		_, page := b.getLang(t, admin, "/audit?registration="+b.permanent, c.lang)
		if !strings.Contains(page, `<td data-testid="audit-reason">`+c.reason+`</td>`) {
			t.Errorf("%s: the audit does not give the claim's reason as %q", c.lang, c.reason)
		}
		_, page = b.getLang(t, admin, "/registrations/"+b.permanent, c.lang)
		if !strings.Contains(page, c.claim) || strings.Contains(page, "⟦") {
			t.Errorf("%s: the registration page lacks %q or has a missing key", c.lang, c.claim)
		}
		_, page = b.getLang(t, admin, "/admin/accounts", c.lang)
		if !strings.Contains(page, c.accounts) || strings.Contains(page, "⟦") {
			t.Errorf("%s: the accounts page lacks %q or has a missing key", c.lang, c.accounts)
		}
		_, page = b.getLang(t, admin, "/?show=all", c.lang)
		if strings.Contains(page, "⟦") {
			t.Errorf("%s: the queue has a missing key", c.lang)
		}
	}
	if resp, body := b.getLang(t, admin, "/?claimed=theirs", "fi"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "Tuntematon valinta") {
		t.Errorf("a bad claim filter in Finnish: %d", resp.StatusCode)
	}
}

// queueRow cuts one row's markup out of a queue page; "" when the row is not on it.
func queueRow(body, id string) string {
	i := strings.Index(body, `data-id="`+id+`"`)
	if i < 0 {
		return ""
	}
	row := body[i:]
	if j := strings.Index(row, "</tr>"); j >= 0 {
		row = row[:j]
	}
	return row
}

// A row the pipeline retried between two calls for a person waits from the first, so it is
// overdue although it entered its state an hour ago.
func TestQueueWaitsFromTheFirstMomentARowNeededSomeone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first := testNow.Add(-5 * 24 * time.Hour)
	id := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "submission_uncertain",
		SubmittedAt: ptr(first.Add(-time.Hour)), StateChangedAt: first, SubmittedAttainmentID: "hy-kur-7", StudentNumber: "014979699"})
	for _, step := range []struct {
		at    time.Time
		state string
	}{{first.Add(time.Hour), "ready_to_submit"}, {first.Add(time.Hour + time.Minute), "submitting"}, {testNow.Add(-time.Hour), "submission_uncertain"}} {
		// As the pipeline writes: neither the stamp nor the version named.
		storetest.LMSExecAsOf(t, b.store, `UPDATE credit_registrations SET state = $2::credit_registration_state,
  state_entered_at = $3, state_changed_at = $3, submitted_at = $3, updated_at = $3 WHERE id = $1`, id, step.state, step.at)
	}
	_, body := b.getWith(t, b.client, "/?show=needs_admin&sort=waiting", false)
	row := queueRow(body, id)
	if !strings.Contains(row, `data-testid="waiting"`) || !strings.Contains(row, `data-overdue="true"`) {
		t.Fatalf("a row first uncertain 5 days ago, again an hour ago, is not overdue: %s", row)
	}
	if strings.Index(body, `data-id="`+id+`"`) > strings.Index(body, `data-id="`+b.uncertainOverdue+`"`) {
		t.Errorf("the row waiting 5 days sorts after the one waiting 30 h")
	}
}

// The age badge counts Helsinki working days: a row that began waiting on a Friday morning is
// not overdue on the Tuesday before that hour, four calendar days later, and is after it.
func TestWaitingBadgeSkipsTheWeekend(t *testing.T) {
	t.Parallel()
	b := setup(t)
	hel := schedule.Helsinki()
	day := testNow.In(hel)
	for day.Weekday() != time.Friday || !day.After(testNow) {
		day = day.AddDate(0, 0, 1)
	}
	friday := time.Date(day.Year(), day.Month(), day.Day(), 10, 0, 0, 0, hel)
	id := storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "misregistered",
		StateChangedAt: friday, SubmittedAttainmentID: "hy-kur-8", StudentNumber: "014979698"})
	overdueAt := func(at time.Time) string {
		t.Helper()
		b.clock.Advance(at.Sub(b.clock.Now()))
		// Signed in afresh: a week on, the first sign-in has run out.
		_, body := b.getWith(t, b.login(t, b.support), "/?show=needs_admin", false)
		row := queueRow(body, id)
		if !strings.Contains(row, `data-testid="waiting"`) {
			t.Fatalf("at %v the row has no waiting badge: %q", at, row)
		}
		return map[bool]string{true: "overdue", false: "on time"}[strings.Contains(row, `data-overdue="true"`)]
	}
	tuesday := friday.AddDate(0, 0, 4)
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{friday.AddDate(0, 0, 3).Add(-time.Minute), "on time"}, // Monday 09:59: one working day
		{tuesday.Add(-time.Hour), "on time"},                   // Tuesday 09:00: 95 hours, not yet two working days
		{tuesday.Add(time.Minute), "overdue"},                  // Tuesday 10:01
	} {
		if got := overdueAt(c.at); got != c.want {
			t.Errorf("waiting since %v, at %v: %s, want %s", friday, c.at.In(hel), got, c.want)
		}
	}
}

// How long a row has waited is a span ("waiting for 4 min", never "waiting 4 min ago"), and a
// moment more than a week away is a date, never "476 d 8 h ago" (issue 27, defect 7).
func TestQueueSaysHowLongAndDatesTheDistantPast(t *testing.T) {
	t.Parallel()
	b := setup(t)
	recent := storetest.AddRegistration(t, b.store, storetest.Registration{
		Student: b.anna, Course: b.course, State: "failed_permanent", ErrorCode: "course_not_allowed",
		NeedsAdminAttention: true, StateChangedAt: testNow.Add(-4 * time.Minute),
	})
	longAgo := testNow.Add(-(476*24 + 8) * time.Hour)
	old := storetest.AddRegistration(t, b.store, storetest.Registration{
		Student: b.anna, Course: b.course, State: "failed_permanent", ErrorCode: "course_not_allowed",
		NeedsAdminAttention: true, StateChangedAt: longAgo,
	})
	_, body := b.get(t, "/?show=needs_admin", false)
	rowOf := func(id string) string {
		i := strings.Index(body, `data-id="`+id+`"`)
		if i < 0 {
			t.Fatalf("row %s is not listed", id)
		}
		row := body[i:]
		return row[:strings.Index(row, "</tr>")]
	}
	badge := regexp.MustCompile(`data-testid="waiting"[^>]*>\s*([^<]*?)\s*<`)
	if m := badge.FindStringSubmatch(rowOf(recent)); m == nil || m[1] != "waiting for 4 min" {
		t.Errorf("the badge of a row waiting 4 min = %q, want %q", m, "waiting for 4 min")
	}
	day := i18n.For(i18n.EN).Day(longAgo, testNow)
	oldRow := rowOf(old)
	if m := badge.FindStringSubmatch(oldRow); m == nil || m[1] != "waiting since "+day {
		t.Errorf("the badge of a row waiting 476 days = %q, want %q", m, "waiting since "+day)
	}
	if regexp.MustCompile(`\d+ d( \d+ h)? ago`).MatchString(oldRow) {
		t.Errorf("a moment 476 days ago is written as a span: %s", oldRow)
	}
}
