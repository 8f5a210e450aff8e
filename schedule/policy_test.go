package schedule_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportsOnlyStdlib keeps schedule pure: the web layer, the store and the
// demo-data generator all lean on it, so it may not lean on anything.
func TestImportsOnlyStdlib(t *testing.T) {
	t.Parallel()

	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "regdesk/schedule" {
			t.Errorf("schedule depends on %s; it may import only the standard library", p)
		}
	}
}

// TestNoWallClock keeps time.Now out of the package and its tests: now is a
// parameter, so every answer is reproducible.
func TestNoWallClock(t *testing.T) {
	t.Parallel()

	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Go files found; is the test running in the package directory?")
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" && (sel.Sel.Name == "Now" || sel.Sel.Name == "Since" || sel.Sel.Name == "Until") {
				t.Errorf("%s: time.%s reads the wall clock; take now as a parameter", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
