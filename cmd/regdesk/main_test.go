package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/store/storetest"
)

// env returns a getenv over a fixed map, so a test never reads the machine's environment.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestServeReportsEveryConfigurationProblemAtOnce(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"serve"}, env(map[string]string{
		"REGDESK_ADDR":      "nowhere",
		"RUN_MIGRATIONS":    "perhaps",
		"LOG_LEVEL":         "loud",
		"STATEMENT_TIMEOUT": "forever",
	}), io.Discard, &stderr)
	if err == nil {
		t.Fatal("run(serve) with a bad configuration returned nil")
	}
	for _, want := range []string{"DATABASE_URL", "REGDESK_ADDR", "RUN_MIGRATIONS", "LOG_LEVEL", "STATEMENT_TIMEOUT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %s:\n%v", want, err)
		}
	}
}

func TestUnknownCommandPrintsUsage(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"frobnicate"}, env(nil), io.Discard, &stderr)
	if err != errUsage {
		t.Fatalf("run(frobnicate) = %v, want errUsage", err)
	}
	if !strings.Contains(stderr.String(), "usage: regdesk") {
		t.Errorf("no usage printed: %q", stderr.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the server goroutine to write while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestServeMigratesServesAndShutsDown(t *testing.T) {
	t.Parallel()
	_, dbURL := storetest.NewWithURL(t, storetest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	var stdout syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, env(map[string]string{
			"DATABASE_URL":   dbURL,
			"REGDESK_ADDR":   "127.0.0.1:0",
			"RUN_MIGRATIONS": "1",
		}), &stdout, io.Discard)
	}()
	addrRE := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`)
	var addr string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(stdout.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended early: %v", err)
		default:
		}
	}
	if addr == "" {
		t.Fatalf("serve never printed its address; stdout: %q", stdout.String())
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz = %d, want 200", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v after shutdown, want nil", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not shut down")
	}
}

// privateClusterDir is the folder of a private cluster of the test's own, stopped and removed
// when it ends (with the root fallback outside the test's folder); it skips the test where no
// PostgreSQL server is installed, and fails it in CI.
func privateClusterDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	if _, err := postgresBin(""); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "pgdata")
	t.Cleanup(func() {
		_ = run(context.Background(), []string{"devdb", "down", "-dir", dir}, env(nil), io.Discard, io.Discard)
		if c, err := findDevCluster(dir, env(nil)); err == nil && c.dir != dir {
			os.RemoveAll(c.dir)
		}
	})
	return dir
}

func TestDevdbStartsAPrivateClusterAndStopsIt(t *testing.T) {
	t.Parallel()
	dir := privateClusterDir(t)
	args := []string{"-dir", dir, "-db", "probe"}
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if err := run(ctx, append([]string{"devdb", "up"}, args...), env(nil), &out, &errOut); err != nil {
		t.Fatalf("devdb up: %v\n%s", err, errOut.String())
	}
	url := strings.TrimSpace(out.String())
	if !strings.HasPrefix(url, "postgres://postgres@/probe?host=") {
		t.Fatalf("devdb up printed %q, want a socket URL of the probe database", url)
	}
	// A second up finds the cluster running and the database there.
	out.Reset()
	if err := run(ctx, append([]string{"devdb", "up"}, args...), env(nil), &out, io.Discard); err != nil {
		t.Fatalf("second devdb up: %v", err)
	}
	if got := strings.TrimSpace(out.String()); got != url {
		t.Errorf("second devdb up printed %q, want %q", got, url)
	}
	// The DBA step the README names: the extension the LMS's database has and regdesk needs.
	if conn, err := pgx.Connect(ctx, url); err != nil {
		t.Fatal(err)
	} else {
		_, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_trgm`)
		conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	migrate := run(ctx, []string{"migrate", "-database-url", url}, env(nil), io.Discard, io.Discard)
	if migrate != nil {
		t.Errorf("migrate on the private cluster: %v", migrate)
	}
}

// Ctrl-C on make run stops the demo and says the private cluster keeps running and how to stop
// it (issue 27, item 12); the cluster does keep running, for make test and the next make run.
func TestDemoOnThePrivateClusterSaysHowToStopIt(t *testing.T) {
	t.Parallel()
	dir := privateClusterDir(t)
	vars := map[string]string{
		"REGDESK_PGDATA":           dir,
		"REGDESK_ADDR":             freeAddr(t),
		"REGDESK_DEMO_SUOTAR_ADDR": freeAddr(t),
		"REGDESK_DEMO_LMS_ADDR":    freeAddr(t),
		"REGDESK_DEMO_SMTP_ADDR":   freeAddr(t),
		"REGDESK_DEMO_MAIL_ADDR":   freeAddr(t),
		// No mail server: the demo then says alerts are not mailed and goes on.
		"REGDESK_DEMO_MAILPIT": filepath.Join(dir, "no-mailpit"),
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"demo", "-rows", "60"}, func(k string) string { return vars[k] }, &out, &errOut)
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(out.String(), "is serving on") {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("the demo did not start serving:\n%s\n%s", out.String(), errOut.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if strings.Contains(out.String(), "devdb down") {
		t.Errorf("the demo says it stopped before it was told to:\n%s", out.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("demo: %v\n%s", err, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the demo did not stop within 30 s")
	}
	if !strings.Contains(out.String(), demoClusterKeepsRunning) {
		t.Errorf("after Ctrl-C the demo does not say the cluster keeps running and how to stop it:\n%s", out.String())
	}
	// The cluster is still up: devdb up finds it at once and prints its URL.
	var url bytes.Buffer
	if err := run(context.Background(), []string{"devdb", "up", "-dir", dir, "-db", "regdesk"}, env(nil), &url, io.Discard); err != nil {
		t.Fatalf("devdb up after the demo: %v", err)
	}
	conn, err := pgx.Connect(context.Background(), strings.TrimSpace(url.String()))
	if err != nil {
		t.Fatalf("the private cluster is not reachable after the demo stopped: %v", err)
	}
	conn.Close(context.Background())
}

func TestServeClockStartsAtClockFromAndRuns(t *testing.T) {
	wall := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	tick := func() time.Time { return wall }
	now, err := serveClock("2026-11-30T10:00:00Z", tick)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	if got := now(); !got.Equal(start) {
		t.Errorf("clock at start = %s, want %s", got, start)
	}
	wall = wall.Add(90 * time.Second)
	if got, want := now(), start.Add(90*time.Second); !got.Equal(want) {
		t.Errorf("clock 90 s later = %s, want %s", got, want)
	}
	plain, err := serveClock("", tick)
	if err != nil {
		t.Fatal(err)
	}
	if got := plain(); !got.Equal(wall) {
		t.Errorf("without -clock-from the clock = %s, want the wall's %s", got, wall)
	}
	if _, err := serveClock("yesterday", tick); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Errorf("serveClock(\"yesterday\") error = %v, want one naming RFC 3339", err)
	}
}

// TestServeMemoryLimit: serve bounds its heap softly unless the operator's GOMEMLIMIT does.
func TestServeMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	debug.SetMemoryLimit(math.MaxInt64)
	if limit, ours := serveMemoryLimit(func(string) string { return "" }); !ours || limit != defaultMemoryLimit || debug.SetMemoryLimit(-1) != defaultMemoryLimit {
		t.Errorf("without GOMEMLIMIT: limit %d (ours %v), runtime's %d; want %d", limit, ours, debug.SetMemoryLimit(-1), defaultMemoryLimit)
	}
	debug.SetMemoryLimit(500 << 20) // as the runtime sets it from GOMEMLIMIT=500MiB
	env := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "500MiB"
		}
		return ""
	}
	if limit, ours := serveMemoryLimit(env); ours || limit != 500<<20 || debug.SetMemoryLimit(-1) != 500<<20 {
		t.Errorf("with GOMEMLIMIT: limit %d (ours %v), runtime's %d; want the operator's %d", limit, ours, debug.SetMemoryLimit(-1), 500<<20)
	}
}
