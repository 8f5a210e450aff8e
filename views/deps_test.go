package views_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestViewsNeverTouchStoreOrWeb keeps components pure: they render view models and never reach
// the database or the handlers (dependencies point inward).
func TestViewsNeverTouchStoreOrWeb(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "regdesk/store" || strings.HasPrefix(p, "regdesk/store/") || p == "regdesk/web" || strings.HasPrefix(p, "regdesk/web/") {
			t.Errorf("views depends on %s; it may use only schedule, static and the standard library", p)
		}
	}
}
