package web_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
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

// A CSV opened by a spreadsheet of either convention runs nothing: one that splits lines on
// commas and one that splits them on semicolons (a Finnish or Swedish spreadsheet, where the
// comma is the decimal sign), and one guessing tabs, each see no cell that starts, after spaces
// and quotes, with = + - or @, however a typed name mixes separators, quotes and line breaks;
// and the comma convention reads every cell whole.
func TestCSVRunsNoFormulaInEitherConvention(t *testing.T) {
	t.Parallel()
	b := setup(t)
	course := storetest.AddCourse(t, b.store, storetest.Course{Name: "Kurssi;-2+3", ModuleName: "Osa,@SUM(1)", Code: "TKT1;=1"})
	hostile := []storetest.Student{
		{FirstName: `Anna;=HYPERLINK("http://evil.example")`, LastName: "Äijälä", Email: "anna;+1@example.invalid"},
		{FirstName: "Ben,\t+1", LastName: `"@cmd"`, Email: `  =1+1@example.invalid`},
		{FirstName: "Eve\n=2+3", LastName: "Quote\"d;  \"-4", Email: "\t=5@example.invalid"},
		{FirstName: "Plain", LastName: "Person", Email: "plain@example.invalid"},
	}
	ids := map[string]string{}
	for i, s := range hostile {
		s.StudentNumber = fmt.Sprintf("01700000%d", i)
		st := storetest.AddStudent(t, b.store, s)
		id := storetest.AddRegistration(t, b.store, storetest.Registration{Student: st, Course: course, State: "failed_permanent",
			ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: testNow.Add(-time.Hour)})
		ids[id] = s.FirstName + " " + s.LastName
	}
	_, body := b.get(t, "/queue/export.csv?show=all", false)
	body = strings.TrimPrefix(body, "\uFEFF")

	// The comma convention, as the file is written: every record has every column, and each
	// hostile name is read whole, an apostrophe before each place a formula could start.
	recs := readCSV(t, "\uFEFF"+body)
	student := column(t, recs, "Student")
	found := 0
	for _, r := range recs[1:] {
		if len(r) != len(recs[0]) {
			t.Errorf("a record of %d cells under %d columns: %q", len(r), len(recs[0]), r)
		}
		typed, ok := ids[r[0]]
		if !ok {
			continue
		}
		found++
		if got := strings.ReplaceAll(r[student], "'", ""); got != typed {
			t.Errorf("the name %q reads %q (apostrophes aside), want it whole", typed, r[student])
		}
	}
	if found != len(hostile) {
		t.Fatalf("found %d of the %d rows", found, len(hostile))
	}
	want := `Anna;'=HYPERLINK("http://evil.example") Äijälä`
	if !strings.Contains(body, `"`+strings.ReplaceAll(want, `"`, `""`)+`"`) {
		t.Errorf("the name with a semicolon is not written quoted as %q:\n%s", want, body)
	}

	// Every convention, as a spreadsheet set to it splits the same bytes: a quote counts only at
	// the start of what it takes for a cell.
	for _, sep := range []rune{',', ';', '\t'} {
		r := csv.NewReader(strings.NewReader(body))
		r.Comma, r.LazyQuotes, r.FieldsPerRecord = sep, true, -1
		cells, err := r.ReadAll()
		if err != nil {
			t.Fatalf("split on %q: %v", sep, err)
		}
		for _, rec := range cells {
			for _, c := range rec {
				if s := strings.TrimLeft(c, ` "`); s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
					t.Errorf("split on %q, a cell starts a formula: %q", sep, c)
				}
			}
		}
	}
}
