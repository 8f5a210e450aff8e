package web_test

import (
	"net/http"
	"strings"
	"testing"
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
