package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"regdesk/store/storetest"
	"regdesk/web"
)

// Support's /courses lists every course module with its numbers, marks a module whose rows fail
// on the course code as a setup problem, sorts by a heading's link and refuses an unknown order;
// a teacher keeps the plain list of their courses.
func TestCourseModulesForSupport(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other, _ := b.addForeignRow(t)

	resp, body := b.get(t, "/courses", false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /courses = %d", resp.StatusCode)
	}
	if n := strings.Count(body, `data-testid="course-module"`); n != 2 {
		t.Fatalf("%d modules listed, want 2", n)
	}
	// The bundle's course: four rows, one registered, one failed on course_not_allowed.
	own := `data-testid="course-module" data-id="` + b.course.ModuleID + `" data-setup="course_not_allowed" data-total="4" data-registered="1"`
	if !strings.Contains(body, own) {
		t.Errorf("the bundle's module is not listed as %s", own)
	}
	if !strings.Contains(body, `data-testid="setup-problem"`) || !strings.Contains(body, `data-testid="sparkline"`) {
		t.Errorf("no setup mark or sparkline")
	}
	_, byTotal := b.get(t, "/courses?sort=total", false)
	if i, j := strings.Index(byTotal, `data-id="`+b.course.ModuleID+`"`), strings.Index(byTotal, `data-id="`+other.ModuleID+`"`); i < 0 || j < 0 || i > j {
		t.Errorf("sorted by total, the module of four rows does not come before the one of one")
	}
	if !strings.Contains(byTotal, `aria-sort="descending"`) {
		t.Errorf("the sorted column is not marked")
	}
	if resp, _ := b.get(t, "/courses?sort=nonsense", false); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown order = %d, want 400", resp.StatusCode)
	}
	if _, body := b.getWith(t, b.login(t, b.teacher), "/courses", false); strings.Contains(body, "course-module") || !strings.Contains(body, `data-testid="course-item"`) {
		t.Errorf("a teacher's /courses is not the plain list of their courses")
	}
}

// With OverviewTTL set, as deployed, /courses shares one reading of the modules' numbers: a
// registration added within the TTL is not counted yet and the page says when it counted; once
// the TTL has passed the next request counts again. A sort of the shared reading does not
// reorder the next person's.
func TestCourseModulesAreSharedForTheOverviewTTL(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) { d.OverviewTTL = time.Minute })
	total := func(body string) string {
		t.Helper()
		m := regexp.MustCompile(`data-id="` + b.course.ModuleID + `"[^>]*data-total="([0-9]+)"`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("the bundle's module is not listed")
		}
		return m[1]
	}
	_, first := b.get(t, "/courses", false)
	if got := total(first); got != "4" {
		t.Fatalf("first reading counts %s rows, want 4", got)
	}
	if !strings.Contains(first, `data-testid="course-modules-counted"`) {
		t.Errorf("a shared reading does not say when it was counted")
	}
	other, _ := b.addForeignRow(t)
	storetest.AddRegistration(t, b.store, storetest.Registration{
		Student: b.anna, Course: b.course, State: "pending", StateChangedAt: testNow.Add(-time.Minute),
	})
	b.clock.Advance(30 * time.Second)
	_, byTotal := b.get(t, "/courses?sort=total", false)
	if got := total(byTotal); got != "4" {
		t.Errorf("within the TTL the reading counts %s rows, want the shared 4", got)
	}
	if strings.Contains(byTotal, `data-id="`+other.ModuleID+`"`) {
		t.Errorf("within the TTL a module added since is listed")
	}
	b.clock.Advance(31 * time.Second)
	_, later := b.get(t, "/courses", false)
	if got := total(later); got != "5" {
		t.Errorf("after the TTL the reading counts %s rows, want 5", got)
	}
	if !strings.Contains(later, `data-id="`+other.ModuleID+`"`) {
		t.Errorf("after the TTL the new module is not listed")
	}
}
