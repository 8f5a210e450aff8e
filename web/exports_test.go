package web_test

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"regdesk/store/storetest"
	"regdesk/web"
)

// readCSV checks the byte-order mark and returns the records.
func readCSV(t *testing.T, body string) [][]string {
	t.Helper()
	if !strings.HasPrefix(body, "\uFEFF") {
		t.Fatalf("no byte-order mark: %q", body[:min(len(body), 20)])
	}
	recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\uFEFF"))).ReadAll()
	if err != nil {
		t.Fatalf("CSV: %v", err)
	}
	return recs
}

func column(t *testing.T, recs [][]string, name string) int {
	t.Helper()
	for i, c := range recs[0] {
		if c == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, recs[0])
	return -1
}

func TestQueueExportIsScopedStreamedAndSafe(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, foreign := b.addForeignRow(t)
	// A student whose name a spreadsheet would run as a formula.
	mallory := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "=HYPERLINK(\"http://evil.example\")", LastName: "+1",
		Email: "@mallory@example.invalid", StudentNumber: "016000099"})
	evil := storetest.AddRegistration(t, b.store, storetest.Registration{Student: mallory, Course: b.course, State: "failed_permanent",
		ErrorCode: "course_not_allowed", ErrorMessage: "-2+3", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-time.Hour)})

	resp, body := b.get(t, "/queue/export.csv?show=all", false)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		!strings.HasPrefix(resp.Header.Get("Content-Disposition"), `attachment; filename="regdesk-queue-`) {
		t.Fatalf("csv: %d %v", resp.StatusCode, resp.Header)
	}
	recs := readCSV(t, body)
	if got := strings.Join(recs[0][:4], ","); got != "Registration id,Student,Student number,E-mail" {
		t.Errorf("columns: %v", recs[0])
	}
	ids := map[string][]string{}
	for _, r := range recs[1:] {
		ids[r[0]] = r
	}
	// Support sees every course; all six live rows are there, however many a page shows.
	for _, id := range []string{b.uncertainOverdue, b.dense, b.settled, b.permanent, foreign, evil} {
		if ids[id] == nil {
			t.Errorf("row %s missing from support's export", id)
		}
	}
	if resp.Header.Get("X-Export-Rows") != "6" || resp.Header.Get("X-Export-Truncated") != "false" {
		t.Errorf("headers: rows %s truncated %s", resp.Header.Get("X-Export-Rows"), resp.Header.Get("X-Export-Truncated"))
	}
	row := ids[evil]
	if got := row[column(t, recs, "Student")]; got != `'=HYPERLINK("http://evil.example") +1` {
		t.Errorf("a formula-like name is written %q", got)
	}
	if got := row[column(t, recs, "E-mail")]; got != "'@mallory@example.invalid" {
		t.Errorf("e-mail written %q", got)
	}
	// Times are ISO 8601 in Helsinki time, with the offset.
	last := ids[b.permanent][column(t, recs, "Last activity")]
	at, err := time.Parse(time.RFC3339, last)
	if err != nil || !strings.HasSuffix(last, "+02:00") && !strings.HasSuffix(last, "+03:00") {
		t.Errorf("Last activity %q is not a Helsinki ISO time: %v", last, err)
	}
	_ = at

	// The filter applies, and a teacher gets only their course.
	_, body = b.get(t, "/queue/export.csv?state=failed_permanent", false)
	if recs := readCSV(t, body); len(recs) != 4 { // header + permanent, foreign, evil
		t.Errorf("filtered export: %d records", len(recs))
	}
	_, body = b.getWith(t, b.login(t, b.teacher), "/queue/export.json?show=all", false)
	var doc struct {
		Columns   []string            `json:"columns"`
		Rows      []map[string]string `json:"rows"`
		Count     int                 `json:"count"`
		Truncated bool                `json:"truncated"`
		Limit     int                 `json:"limit"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, body)
	}
	if doc.Count != 5 || len(doc.Rows) != 5 || doc.Truncated || doc.Limit != 100000 {
		t.Errorf("teacher's json: count %d rows %d truncated %v limit %d", doc.Count, len(doc.Rows), doc.Truncated, doc.Limit)
	}
	for _, r := range doc.Rows {
		if r["Registration id"] == foreign {
			t.Errorf("the teacher's export holds another course's row")
		}
	}
	// JSON keeps the text as typed: neutralising is for spreadsheets.
	for _, r := range doc.Rows {
		if r["Registration id"] == evil && !strings.HasPrefix(r["Student"], "=HYPERLINK") {
			t.Errorf("json student %q", r["Student"])
		}
	}
	if resp, _ := b.get(t, "/queue/export.csv?phase=nonsense", false); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad filter: %d", resp.StatusCode)
	}
}

func TestExportStopsAtTheCap(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *web.Deps) { d.ExportLimit = 2 })
	resp, body := b.get(t, "/queue/export.json?show=all", false)
	var doc struct {
		Rows      []map[string]string `json:"rows"`
		Count     int                 `json:"count"`
		Truncated bool                `json:"truncated"`
		Limit     int                 `json:"limit"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 2 || !doc.Truncated || doc.Limit != 2 || resp.Header.Get("X-Export-Truncated") != "true" {
		t.Errorf("capped: rows %d truncated %v limit %d header %s", len(doc.Rows), doc.Truncated, doc.Limit, resp.Header.Get("X-Export-Truncated"))
	}
	_, page := b.get(t, "/?show=all", false)
	if !strings.Contains(page, `href="/queue/export.csv?show=all"`) || !strings.Contains(page, "at most 2 rows") {
		t.Errorf("the queue does not offer its export with the cap")
	}
}

func TestCourseAndAuditExports(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other, _ := b.addForeignRow(t)
	_, body := b.getWith(t, b.login(t, b.teacher), "/courses/"+b.course.ID+"/export.csv", false)
	recs := readCSV(t, body)
	if len(recs) != 5 || recs[0][1] != "Status" || recs[0][7] != "What happens next" {
		t.Errorf("course export: %d records, columns %v", len(recs), recs[0])
	}
	if resp, _ := b.getWith(t, b.login(t, b.teacher), "/courses/"+other.ID+"/export.csv", false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another course's export for the teacher: %d", resp.StatusCode)
	}
	// An audit entry with a reason a spreadsheet would run.
	if resp, _ := b.postForm(t, b.client, "/registrations/"+b.permanent+"/claim", url.Values{"reason": {"=cmd|' /C calc'!A0"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("claim: %d", resp.StatusCode)
	}
	_, body = b.get(t, "/audit/export.csv?action=claim", false)
	recs = readCSV(t, body)
	if len(recs) != 2 || recs[1][column(t, recs, "Reason")] != "'=cmd|' /C calc'!A0" || recs[1][column(t, recs, "Who")] != "Sami Support" {
		t.Errorf("audit export: %v", recs)
	}
	if resp, _ := b.getWith(t, b.login(t, b.teacher), "/audit/export.csv", false); resp.StatusCode != http.StatusForbidden {
		t.Errorf("teacher audit export: %d", resp.StatusCode)
	}
}

// TestExportColumnsInTheReadersLanguage: a CSV, opened by a person, heads its columns in their
// language; a JSON export keeps its keys the stable English names whatever the language, so a
// script reading it does not break when its owner switches to Finnish.
func TestExportColumnsInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	admin := b.login(t, b.admin)
	want := map[string]map[string]string{
		"fi": {"/queue/export.csv?show=all": "Rekisteröinnin tunniste,Opiskelija,Opiskelijanumero,Sähköposti",
			"/courses/" + b.course.ID + "/export.csv": "Rekisteröinnin tunniste,Tilanne,Opiskelija,Opiskelijanumero",
			"/audit/export.csv":                       "Merkinnän tunniste,Milloin,Kuka,Rooli"},
		"sv": {"/queue/export.csv?show=all": "Registreringens id,Studerande,Studentnummer,E-post",
			"/courses/" + b.course.ID + "/export.csv": "Registreringens id,Status,Studerande,Studentnummer",
			"/audit/export.csv":                       "Postens id,När,Vem,Roll"},
	}
	for _, lang := range []string{"fi", "sv"} {
		if resp, _ := b.postForm(t, admin, "/language", url.Values{"lang": {lang}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("choosing %s: %d", lang, resp.StatusCode)
		}
		for path, head := range want[lang] {
			resp, body := b.getWith(t, admin, path, false)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s %s = %d", lang, path, resp.StatusCode)
			}
			if got := strings.Join(readCSV(t, body)[0][:4], ","); got != head {
				t.Errorf("%s %s columns: %s, want %s", lang, path, got, head)
			}
		}
		_, body := b.getWith(t, admin, "/queue/export.json?show=all", false)
		var doc struct {
			Columns []string `json:"columns"`
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil || len(doc.Columns) < 4 ||
			strings.Join(doc.Columns[:4], ",") != "Registration id,Student,Student number,E-mail" {
			t.Errorf("%s: the JSON keys changed with the language: %v %v", lang, doc.Columns, err)
		}
	}
}

// Following an export link says, beside it, that the file streams as it downloads: the page
// itself does not change while a large export arrives.
func TestBrowserExportLinkSaysItStreams(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bt := newTab(t)
	bt.do(t, login(b.server.URL, b.support.Email, testPassword), chromedp.Navigate(b.server.URL+"/?show=all"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-csv"]`)))
	if got := bt.eval(t, `String(document.querySelector('[data-testid="export-status"]').hidden)`); got != "true" {
		t.Fatalf("the streaming note shows before any export: hidden = %s", got)
	}
	// The download itself is the browser's; the test keeps it from starting, after app.js has seen
	// the click, and reads the note at once: the queue's refresh may redraw the links.
	got := bt.eval(t, `(() => {
  document.addEventListener("click", (e) => e.preventDefault());
  document.querySelector('[data-testid="export-csv"]').click();
  const s = document.querySelector('[data-testid="export-status"]');
  return String(!s.hidden) + "|" + s.textContent;
})()`)
	if shown, words, _ := strings.Cut(got, "|"); shown != "true" || !strings.Contains(words, "as it downloads") {
		t.Errorf("after following the CSV link the streaming note is shown=%s, says %q", shown, words)
	}
}
