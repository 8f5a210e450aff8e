package store_test

import (
	osexec "os/exec"
	"strings"
	"testing"
)

// TestLayering holds the import rules that keep dependencies pointing inward: nothing under store
// imports the web or the views (SQL and what fills it, nothing that renders), and a partner
// (partner/...) imports nothing of regdesk's but schedule, so a partner and its fake can be read,
// tested and replaced alone.
func TestLayering(t *testing.T) {
	t.Parallel()
	out, err := osexec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "regdesk/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		under := func(root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }
		for _, imp := range imports {
			if !strings.HasPrefix(imp, "regdesk/") {
				continue
			}
			is := func(root string) bool { return imp == root || strings.HasPrefix(imp, root+"/") }
			switch {
			case under("regdesk/store") && (is("regdesk/web") || is("regdesk/views")):
				t.Errorf("%s imports %s: nothing under store may import web or views", pkg, imp)
			case under("regdesk/partner") && !is("regdesk/schedule") && !is(partnerRoot(pkg)):
				t.Errorf("%s imports %s: a partner imports nothing of regdesk's but schedule (and its own package)", pkg, imp)
			}
		}
		if under("regdesk/store") || under("regdesk/partner") {
			checked[pkg] = true
		}
	}
	// The rule must have something to hold: store, each partner and a fake.
	for _, p := range []string{"regdesk/store", "regdesk/partner/suotar", "regdesk/partner/lms/lmsfake", "regdesk/partner/smtp",
		"regdesk/partner/smtp/smtptest"} {
		if !checked[p] {
			t.Errorf("the layering test did not see %s: has the layout moved?", p)
		}
	}
}

// partnerRoot is the partner a package under partner/ belongs to: regdesk/partner/lms for
// regdesk/partner/lms/lmsfake.
func partnerRoot(pkg string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(pkg, "regdesk/partner/"), "/")
	return "regdesk/partner/" + name
}
