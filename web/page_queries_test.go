package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"regdesk/store/storetest"
)

// pageQueryBudget is the most statements a registration page may send in the common case (no
// alert link): the session's load and save, the account, and the page's one read.
const pageQueryBudget = 4

// TestRegistrationPageQueries counts, through a tracer on the pool, every statement a
// registration page sends, the session's and the account's included, for a row with a history,
// a Sisu lookup and a second attempt, as support (with the action panel) and as a teacher.
func TestRegistrationPageQueries(t *testing.T) {
	t.Parallel()
	counter := &storetest.QueryCounter{}
	st, _ := storetest.NewWithURL(t, storetest.Options{Tracer: counter})
	b := setupOn(t, st, nil)
	id := b.uncertainOverdue
	storetest.AddEvent(t, b.store, id, testNow.Add(-30*time.Hour), "state_changed", "submitting", "submission_uncertain", "timed out")
	b.addLookup(t, id, testNow.Add(-time.Minute), b.support, lookupRegisteredOurs)
	// Another row holds a different attainment, so the page's read looks for holders and finds one.
	storetest.AddRegistration(t, b.store, storetest.Registration{Student: b.anna, Course: b.course, State: "registered",
		SisuAttainmentID: "hy-cu-other", StateChangedAt: testNow.Add(-time.Hour)})

	admin := b.login(t, b.admin)
	for _, c := range []struct {
		name   string
		client *http.Client
		want   string
	}{
		{"support", b.client, `data-testid="action-check_now"`},
		{"admin", admin, `data-verdict="registered"`},
	} {
		// The first page of a process reads the firing alerts into the banner's cache; the pages
		// after it, for the cache's lifetime, do not.
		b.getWith(t, c.client, "/registrations/"+id, false)
		counter.Reset()
		resp, body := b.getWith(t, c.client, "/registrations/"+id, false)
		statements := counter.Statements()
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, c.want) {
			t.Fatalf("%s: GET = %d, page lacks %q", c.name, resp.StatusCode, c.want)
		}
		pageReads := 0
		for _, sql := range statements {
			if strings.Contains(sql, "AS holders") {
				pageReads++
			}
		}
		if pageReads != 1 {
			t.Errorf("%s: the page's read ran %d times, want once", c.name, pageReads)
		}
		if len(statements) > pageQueryBudget {
			t.Errorf("%s: the page sent %d statements, want at most %d:\n%s", c.name, len(statements), pageQueryBudget,
				strings.Join(statements, "\n---\n"))
		}
		t.Logf("%s: %d statements for the registration page", c.name, len(statements))
	}
}
