package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

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
	hold, err := b.store.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(context.WithoutCancel(ctx))
	if _, err := hold.Exec(ctx, `LOCK TABLE students IN ACCESS EXCLUSIVE MODE`); err != nil {
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
