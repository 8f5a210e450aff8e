package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
)

// alertedAt is the alert time of the tests' links: an hour before testNow.
var alertedAt = testNow.Add(-time.Hour)

// at is how a sentence on a page written at testNow says when t was ("11:00", "23:45 yesterday").
func at(t time.Time) string { return views.At(t, testNow) }

// plusTwo is a fixed +02:00 offset, the way a person in Finland might write an alert's time.
var plusTwo = time.FixedZone("", 2*60*60)

func alertQuery(t time.Time) string { return "alerted_at=" + url.QueryEscape(t.Format(time.RFC3339)) }

// cancelAs cancels row id at `at` as a, through the store, as the hand-action page would.
func (b *testBundle) cancelAs(t *testing.T, a testAccount, id string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	acts, err := b.store.RegistrationPageGet(ctx, at, id, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.actAs(t, at, a, store.ActionParams{Scope: store.AllCourses(),
		RegistrationID: id, Action: schedule.ActionCancel, Version: acts.Version, Reason: "written off with the teacher",
	})
	if err != nil {
		t.Fatalf("cancel %s as %s: %v", id, a.Name, err)
	}
}

// banner returns the since-alert banner of body as text, or fails.
func banner(t *testing.T, path, body string) string {
	t.Helper()
	i := strings.Index(body, `data-testid="since-alert"`)
	if i < 0 {
		t.Fatalf("GET %s shows no since-alert banner:\n%s", path, body)
	}
	end := strings.Index(body[i:], "</section>")
	return body[i : i+end]
}

func TestAlertBannerOnARegistration(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.cancelAs(t, b.support, b.permanent, testNow.Add(-30*time.Minute))

	path := "/registrations/" + b.permanent + "?" + alertQuery(alertedAt)
	resp, body := b.get(t, path, false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d", path, resp.StatusCode)
	}
	got := banner(t, path, body)
	want := "Since the alert at " + at(alertedAt) + ", Sami Support cancelled it at " + at(testNow.Add(-30*time.Minute)) + "; it is now “Not registering”."
	if !strings.Contains(got, want) || !strings.Contains(got, `data-changed="true" data-needs-action="false"`) {
		t.Errorf("banner = %s\nwant %q", got, want)
	}
	if !strings.Contains(body, `<a href="/students/`+b.anna.ID+`">Anna Äijälä</a>`) {
		t.Errorf("the registration page does not link its student's page")
	}

	// A row nobody touched says so, and that it still needs action.
	path = "/registrations/" + b.uncertainOverdue + "?" + alertQuery(alertedAt)
	_, body = b.get(t, path, false)
	got = banner(t, path, body)
	if !strings.Contains(got, "Nothing has changed since the alert at "+at(alertedAt)+"; it still needs action: outcome uncertain.") ||
		!strings.Contains(got, `data-changed="false" data-needs-action="true"`) {
		t.Errorf("unchanged banner = %s", got)
	}
	// Without alerted_at there is no banner.
	if _, body := b.get(t, "/registrations/"+b.uncertainOverdue, false); strings.Contains(body, `data-testid="since-alert"`) {
		t.Errorf("a page without alerted_at shows the banner")
	}
}

func TestAlertBannerOnAStudentAndACourse(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.cancelAs(t, b.admin, b.permanent, testNow.Add(-20*time.Minute))
	teacher := b.login(t, b.teacher)

	path := "/students/" + b.anna.ID + "?" + alertQuery(alertedAt)
	_, body := b.getWith(t, teacher, path, false)
	got := banner(t, path, body)
	for _, want := range []string{
		"Since the alert at " + at(alertedAt) + ": 1 of Anna’s registrations changed; 1 still needs action.",
		`data-id="` + b.permanent + `" data-needs-action="false"><a href="#reg-` + b.permanent + `">Ohjelmoinnin perusteet · Default module (Not registering)</a>: Since the alert at ` + at(alertedAt) + `, Aino Admin cancelled it at ` + at(testNow.Add(-20*time.Minute)) + `; it is now “Not registering”.`,
		`data-id="` + b.uncertainOverdue + `" data-needs-action="true"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("student banner lacks %s\n%s", want, got)
		}
	}
	for _, word := range internalWords {
		if strings.Contains(body, word) {
			t.Errorf("the teacher's student page with a banner shows the internal %q", word)
		}
	}

	path = "/courses/" + b.course.ID + "?" + alertQuery(alertedAt)
	_, body = b.getWith(t, teacher, path, false)
	got = banner(t, path, body)
	for _, want := range []string{
		"Since the alert at " + at(alertedAt) + ": 1 of this course’s registrations changed; 1 still needs action.",
		`<a href="/students/` + b.anna.ID + `#reg-` + b.permanent + `">Anna Äijälä · Default module</a>: Since the alert at ` + at(alertedAt) + `, Aino Admin cancelled it at ` + at(testNow.Add(-20*time.Minute)),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("course banner lacks %s\n%s", want, got)
		}
	}

	// Nothing happened after a later alert.
	path = "/students/" + b.anna.ID + "?" + alertQuery(testNow.Add(-10*time.Minute))
	_, body = b.get(t, path, false)
	if got := banner(t, path, body); !strings.Contains(got, "Since the alert at "+at(testNow.Add(-10*time.Minute))+": nothing has changed; 1 still needs action.") {
		t.Errorf("banner after a later alert = %s", got)
	}
}

func TestAlertBannerOnTheQueue(t *testing.T) {
	t.Parallel()
	b := setup(t)

	path := "/?reason=outcome_uncertain&" + alertQuery(alertedAt)
	_, body := b.get(t, path, false)
	got := banner(t, path, body)
	for _, want := range []string{
		"You were alerted about this view at " + at(alertedAt) + ". How it looked then is not kept; now it lists 1 registration. 2 registrations need a person across the queue.",
		`href="/?reason=outcome_uncertain&amp;show=all"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("queue banner lacks %s\n%s", want, got)
		}
	}
	if !strings.Contains(body, `data-id="`+b.uncertainOverdue+`"`) {
		t.Errorf("the alert link does not show the filtered view")
	}
}

func TestAlertTimesThatCannotBeUsed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	base := "/registrations/" + b.uncertainOverdue + "?alerted_at="
	cases := []struct {
		name, value, note string
	}{
		{"Words", "yesterday", "is not a date and time regdesk can read"},
		{"NoZone", alertedAt.Format("2006-01-02T15:04:05"), "is not a date and time regdesk can read"},
		{"Huge", strings.Repeat("9", 300), "is not a date and time regdesk can read"},
		{"NotUTF8", "%ff%fe", "is not a date and time regdesk can read"},
		{"Future", url.QueryEscape(testNow.Add(48 * time.Hour).Format(time.RFC3339)), "is in the future"},
	}
	for _, tc := range cases {
		for _, page := range []string{base, "/students/" + b.anna.ID + "?alerted_at=", "/courses/" + b.course.ID + "?alerted_at=", "/?alerted_at="} {
			if page != base && tc.name != "Words" {
				continue
			}
			path := page + tc.value
			resp, body := b.get(t, path, false)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s: GET %s = %d, want the page with a note", tc.name, path, resp.StatusCode)
				continue
			}
			got := banner(t, path, body)
			if !strings.Contains(got, `data-testid="since-alert-note"`) || !strings.Contains(got, tc.note) {
				t.Errorf("%s: banner = %s\nwant a note saying %q", tc.name, got, tc.note)
			}
		}
	}
	// An offset written unescaped arrives with a space for its "+"; it still reads.
	path := base + alertedAt.In(plusTwo).Format(time.RFC3339)
	_, body := b.get(t, path, false)
	if got := banner(t, path, body); strings.Contains(got, "since-alert-note") || !strings.Contains(got, "since the alert at "+at(alertedAt)) {
		t.Errorf("an unescaped +02:00 offset: banner = %s", got)
	}
}

func TestAlertTimeSurvivesSignIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	deep := "/students/" + b.anna.ID + "?alerted_at=" + url.QueryEscape(alertedAt.In(plusTwo).Format(time.RFC3339))
	anon := newClient(t)

	resp, _ := b.getWith(t, anon, deep, false)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || loc != "/login?next="+url.QueryEscape(deep) {
		t.Fatalf("anonymous GET %s = %d → %q, want the sign-in page carrying the link", deep, resp.StatusCode, loc)
	}
	next, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	resp, _ = b.postForm(t, anon, "/login", url.Values{"email": {b.teacher.Email}, "password": {testPassword}, "next": {next.Query().Get("next")}})
	if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != deep {
		t.Fatalf("sign-in = %d → %q, want 303 → %s", resp.StatusCode, got, deep)
	}
	_, body := b.getWith(t, anon, deep, false)
	if got := banner(t, deep, body); !strings.Contains(got, "Since the alert at "+at(alertedAt)) {
		t.Errorf("after signing in the banner = %s", got)
	}
}
