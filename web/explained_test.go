package web_test

import (
	"strings"
	"testing"

	"regdesk/store/storetest"
)

// A row a blocking problem explains (here its module failed the LMS's configuration check, and
// its error waits for the course's set-up) leaves the needs-a-person queue, as on the LMS's Needs
// attention queue; its own page says the same: not "needs a person", but held up by the problem,
// in words.
func TestRegistrationPageAgreesWithTheQueueOnAnExplainedRow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, page := b.get(t, "/registrations/"+b.permanent, false)
	if !strings.Contains(page, `data-testid="needs-admin"`) || strings.Contains(page, `data-testid="explained-by"`) {
		t.Fatal("before any problem, the flagged row's page does not say it needs a person")
	}

	storetest.LMSExecNoSync(t, b.store, `INSERT INTO course_module_suotar_configurations (course_module_id, config_checked_at, course_code_allowed, config_check_message)
VALUES ($1, now(), false, 'courseNotAllowed')`, b.course.ModuleID)

	_, body := b.get(t, "/", false)
	if strings.Contains(body, `data-id="`+b.permanent+`"`) {
		t.Error("the queue still lists the row its module's set-up explains")
	}
	_, body = b.get(t, "/?show=all&standing=explained_by_problem", false)
	if !strings.Contains(body, `data-id="`+b.permanent+`"`) {
		t.Error("standing=explained_by_problem does not list the row")
	}
	_, page = b.get(t, "/registrations/"+b.permanent, false)
	if strings.Contains(page, `data-testid="needs-admin"`) {
		t.Error("the explained row's page says it needs a person while the queue leaves it out")
	}
	if !strings.Contains(page, `data-testid="explained-by"`) || !strings.Contains(page, "set-up, which failed the LMS") {
		t.Error("the explained row's page does not say what holds it up")
	}
}
