package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"regdesk/store"
	"regdesk/store/storetest"
	"regdesk/web"
)

// A person's export of more rows than stream straight to the browser is written to a file while
// a page counts the rows written of the total (reloading itself without JavaScript, polled by
// htmx with it), then offers the file: the same rows, scope and cap as a streamed export, with
// the same headers. Nobody else sees the job or its file.
func TestLongExportShowsItsProgressThenItsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := setupWith(t, func(d *web.Deps) { d.ExportInlineRows, d.ExportLimit, d.ExportDir = 2, 3, dir })
	ctx := t.Context()
	// The course export counts its rows from the ledger alone, then reads them with the students'
	// names: holding the students table lets the count through and stops the job at its first
	// row, so the page can be looked at while it runs.
	hold, err := storetest.LMS(t, b.store).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(context.WithoutCancel(ctx))
	if _, err := hold.Exec(ctx, `LOCK TABLE user_details IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	resp, _ := b.get(t, "/courses/"+b.course.ID+"/export.csv", false)
	page := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(page, "/exports/") {
		t.Fatalf("a long export = %d to %q, want 303 to its progress page", resp.StatusCode, page)
	}
	var body string
	for !strings.Contains(body, `data-total="3"`) {
		if ctx.Err() != nil {
			t.Fatalf("the job never counted its rows:\n%s", body)
		}
		time.Sleep(10 * time.Millisecond)
		resp, body = b.get(t, page, false)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-done="0" data-total="3"`) || !strings.Contains(body, "0 of 3 rows written") ||
		!strings.Contains(body, `<noscript><meta http-equiv="refresh" content="2"></noscript>`) || !strings.Contains(body, `hx-get="`+page+`" hx-trigger="every 1s"`) {
		t.Fatalf("the progress page while the export waits (%d):\n%s", resp.StatusCode, body)
	}
	if resp, part := b.get(t, page, true); resp.StatusCode != http.StatusOK || strings.Contains(part, "<html") || !strings.Contains(part, `data-testid="export-job-progress"`) {
		t.Errorf("htmx's poll = %d:\n%s", resp.StatusCode, part)
	}
	admin := b.login(t, b.admin)
	for _, p := range []string{page, page + "/file"} {
		if resp, _ := b.getWith(t, admin, p, false); resp.StatusCode != http.StatusNotFound {
			t.Errorf("another person's %s = %d, want 404", p, resp.StatusCode)
		}
	}
	if resp, _ := b.get(t, page+"/file", false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the file before it is written = %d, want 404", resp.StatusCode)
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(body, `data-testid="export-job-ready"`) {
		if ctx.Err() != nil {
			t.Fatalf("the export never finished:\n%s", body)
		}
		time.Sleep(10 * time.Millisecond)
		_, body = b.get(t, page, false)
	}
	if !strings.Contains(body, "The file is ready: 3 rows.") || !strings.Contains(body, `data-testid="export-job-truncated"`) ||
		!strings.Contains(body, `href="`+page+`/file"`) {
		t.Errorf("the finished export's page:\n%s", body)
	}
	if resp, _ := b.get(t, page, true); resp.Header.Get("HX-Redirect") != page {
		t.Errorf("htmx's poll of a finished export: HX-Redirect %q, want the page", resp.Header.Get("HX-Redirect"))
	}
	resp, file := b.get(t, page+"/file", false)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
		!strings.HasPrefix(resp.Header.Get("Content-Disposition"), `attachment; filename="regdesk-course-`) ||
		resp.Header.Get("X-Export-Rows") != "3" || resp.Header.Get("X-Export-Truncated") != "true" {
		t.Fatalf("the file = %d %v", resp.StatusCode, resp.Header)
	}
	recs := readCSV(t, file)
	if len(recs) != 4 || recs[0][0] != "Registration id" {
		t.Errorf("the file holds %d records, want a header and 3 rows: %q", len(recs), recs)
	}
	// A course outside a teacher's courses is not found, long or not.
	other, _ := b.addForeignRow(t)
	if resp, _ := b.getWith(t, b.login(t, b.teacher), "/courses/"+other.ID+"/export.csv", false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a teacher's export of another course = %d, want 404", resp.StatusCode)
	}
}

// waitReady polls a long export's page with c until its file is ready, and returns the page.
func waitReady(t *testing.T, c *http.Client, base, page string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		req, err := http.NewRequest(http.MethodGet, base+page, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, body := do(t, c, req)
		if strings.Contains(body, `data-testid="export-job-ready"`) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never finished:\n%.600s", page, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exportFiles lists the files under an export folder, whichever instance wrote them.
func exportFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, ".lock") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// One person holds at most web.ExportsPerPerson long exports at once: another drops their oldest
// finished one (whose page then says it is no longer kept, and to ask again), and with that many
// still being written, another is refused with a 429 that says to wait.
func TestLongExportsPerPersonAreCapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Slots for every export at once: the ones held up below must not keep the others from
	// being asked for.
	b := setupWith(t, func(d *web.Deps) { d.ExportInlineRows, d.ExportDir, d.HeavyPages = 2, dir, 10 })
	ask := func() string {
		t.Helper()
		resp, body := b.get(t, "/courses/"+b.course.ID+"/export.csv", false)
		page := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(page, "/exports/") {
			t.Fatalf("a long export = %d to %q, want 303 to its progress page:\n%.600s", resp.StatusCode, page, body)
		}
		return page
	}
	var pages []string
	for range web.ExportsPerPerson + 1 {
		page := ask()
		waitReady(t, b.client, b.server.URL, page)
		pages = append(pages, page)
	}
	resp, body := b.get(t, pages[0], false)
	if resp.StatusCode != http.StatusGone || !strings.Contains(body, "This export is no longer kept") || !strings.Contains(body, "Ask for it again.") {
		t.Errorf("the oldest export, dropped for a newer one = %d:\n%.800s", resp.StatusCode, body)
	}
	for _, p := range pages[1:] {
		if resp, _ := b.get(t, p+"/file", false); resp.StatusCode != http.StatusOK {
			t.Errorf("a kept export's file %s = %d", p, resp.StatusCode)
		}
	}
	if files := exportFiles(t, dir); len(files) != web.ExportsPerPerson {
		t.Errorf("the folder holds %d files, want the %d kept: %v", len(files), web.ExportsPerPerson, files)
	}
	// Someone else is not held back by this person's exports.
	admin := b.login(t, b.admin)
	if resp, _ := b.getWith(t, admin, "/courses/"+b.course.ID+"/export.csv", false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("another person's long export = %d, want 303", resp.StatusCode)
	}

	// While the students' details are held, every new export waits at its first row.
	ctx := t.Context()
	hold, err := storetest.LMS(t, b.store).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(context.WithoutCancel(ctx))
	if _, err := hold.Exec(ctx, `LOCK TABLE user_details IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	for range web.ExportsPerPerson {
		ask()
	}
	resp, body = b.get(t, "/courses/"+b.course.ID+"/export.csv", false)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "You already have 3 exports being written") {
		t.Errorf("a fourth export while three are written = %d, want 429 saying to wait:\n%.800s", resp.StatusCode, body)
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestHelperExportServer is not a test of its own: TestKilledServerLeavesNoExportBehind runs it
// as a process of its own, a regdesk server to kill, and it serves until then.
func TestHelperExportServer(t *testing.T) {
	dbURL := os.Getenv("REGDESK_HELPER_DATABASE_URL")
	if dbURL == "" {
		return // run by TestKilledServerLeavesNoExportBehind only
	}
	st, err := store.Open(context.Background(), dbURL, store.Options{MaxConns: 4, PasswordCost: 4})
	if err != nil {
		t.Fatal(err)
	}
	srv := web.New(web.Deps{Store: st, Now: testClockFrom(os.Getenv("REGDESK_HELPER_NOW")), Session: web.SessionConfig{Insecure: true},
		ExportInlineRows: 2, ExportDir: os.Getenv("REGDESK_HELPER_EXPORT_DIR")})
	ts := httptest.NewServer(srv.Routes())
	fmt.Printf("serving %s\n", ts.URL)
	select {}
}

// testClockFrom is a clock standing at the RFC 3339 instant at.
func testClockFrom(at string) func() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, at)
	return func() time.Time { return t }
}

// A regdesk process killed (SIGKILL: nothing of it runs again) while it holds a long export,
// with names and student numbers in it, leaves the file on disk; the next instance to start on the
// same folder deletes it, and answers the export's page, its poll and its file with "this export
// was lost when the server restarted; ask for it again", not "not found". Stopping deletes an
// instance's folder.
func TestKilledServerLeavesNoExportBehind(t *testing.T) {
	t.Parallel()
	st, dbURL := storetest.NewWithURL(t, storetest.Options{})
	b := setupOn(t, st, nil)
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestHelperExportServer$")
	child.Env = append(os.Environ(), "REGDESK_HELPER_DATABASE_URL="+dbURL, "REGDESK_HELPER_EXPORT_DIR="+dir,
		"REGDESK_HELPER_NOW="+testNow.Format(time.RFC3339Nano))
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	served := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "serving "); ok {
				served <- u
			}
		}
	}()
	var killed string
	select {
	case killed = <-served:
	case <-time.After(30 * time.Second):
		t.Fatal("the server process did not start")
	}

	support := newClient(t)
	post := func(base, path string, form url.Values) *http.Response {
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, _ := do(t, support, req)
		return resp
	}
	if resp := post(killed, "/login", url.Values{"email": {b.support.Email}, "password": {testPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in on the server process: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodGet, killed+"/courses/"+b.course.ID+"/export.csv", nil)
	resp, _ := do(t, support, req)
	page := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(page, "/exports/") {
		t.Fatalf("a long export = %d to %q", resp.StatusCode, page)
	}
	waitReady(t, support, killed, page)
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	left := exportFiles(t, dir)
	if len(left) != 1 {
		t.Fatalf("after the kill the folder holds %v, want the export's file", left)
	}
	if data, err := os.ReadFile(left[0]); err != nil || !strings.Contains(string(data), "014979622") {
		t.Fatalf("the file left behind does not hold the export (a student number): %v", err)
	}

	// The restart: a new instance on the same folder and database.
	srv := web.New(web.Deps{Store: st, Now: b.clock.Now, Session: web.SessionConfig{Insecure: true}, ExportInlineRows: 2, ExportDir: dir})
	restarted := httptest.NewServer(srv.Routes())
	t.Cleanup(restarted.Close)
	if files := exportFiles(t, dir); len(files) != 0 {
		t.Errorf("after the restart the folder still holds %v", files)
	}
	get := func(path string, htmx bool) (*http.Response, string) {
		req, err := http.NewRequest(http.MethodGet, restarted.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if htmx {
			req.Header.Set("HX-Request", "true")
		}
		return do(t, support, req)
	}
	const lost = "This export was lost when the server restarted; ask for it again."
	if resp, body := get(page, false); resp.StatusCode != http.StatusGone || !strings.Contains(body, lost) {
		t.Errorf("the old export's page after the restart = %d, want 410 saying it was lost:\n%.800s", resp.StatusCode, body)
	}
	if resp, _ := get(page, true); resp.Header.Get("HX-Redirect") != page {
		t.Errorf("the old export's poll after the restart: HX-Redirect %q, want its page", resp.Header.Get("HX-Redirect"))
	}
	if resp, body := get(page+"/file", false); resp.StatusCode != http.StatusGone || !strings.Contains(body, lost) {
		t.Errorf("the old export's file after the restart = %d:\n%.400s", resp.StatusCode, body)
	}
	// An id the person never had is still not found.
	if resp, _ := get("/exports/"+storetest.NewID(), false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an export nobody made = %d, want 404", resp.StatusCode)
	}
	srv.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a stopped instance left %d entries in the folder", len(entries))
	}
}

// Two instances on one folder (two on a machine, or a restart overlapping the old process): the
// one starting sweeps only what stopped instances left, never a running one's exports.
func TestStartingInstanceKeepsARunningOnesExports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := setupWith(t, func(d *web.Deps) { d.ExportInlineRows, d.ExportDir = 2, dir })
	resp, _ := b.get(t, "/courses/"+b.course.ID+"/export.csv", false)
	page := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a long export = %d", resp.StatusCode)
	}
	waitReady(t, b.client, b.server.URL, page)
	other := web.New(web.Deps{Store: b.store, Session: web.SessionConfig{Insecure: true}, ExportDir: dir})
	defer other.Close()
	if resp, file := b.get(t, page+"/file", false); resp.StatusCode != http.StatusOK || !strings.Contains(file, "014979622") {
		t.Errorf("the running instance's export after another started on its folder = %d", resp.StatusCode)
	}
}
