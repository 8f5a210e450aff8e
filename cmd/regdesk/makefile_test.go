package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstRunSaysItCompilesMailpit: the first make run compiles Mailpit, minutes on a fresh
// machine; make says so before it starts rather than sitting silent (issue 27, item 12). make -n
// prints the recipe for a Mailpit that is missing, without running it.
func TestFirstRunSaysItCompilesMailpit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is not installed: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "mailpit")
	out, err := exec.Command("make", "-C", filepath.Join("..", ".."), "-n", "MAILPIT="+missing, missing).CombinedOutput()
	if err != nil {
		t.Fatalf("make -n: %v\n%s", err, out)
	}
	echo, install, found := strings.Cut(string(out), "go install github.com/axllent/mailpit@")
	if !found || !strings.Contains(echo, "compiling Mailpit") || !strings.Contains(echo, "a few minutes") {
		t.Errorf("make does not say it compiles Mailpit before it does:\n%s%s", echo, install)
	}
}
