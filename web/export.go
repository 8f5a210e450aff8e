package web

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// This file is the exports: CSV and JSON of what a list shows, the queue under its filter, a
// course's registrations and the audit under its filter. Every matching row is written (up to
// store.ExportMaxRows, which the answer states), row by row as the database sends them, never
// held as a list. Columns are named as the page names them; times are ISO 8601 in Helsinki time
// with their offset; the CSV is UTF-8 with a byte-order mark, so a spreadsheet reads its accents,
// and a cell a spreadsheet would take for a formula is neutralised.

// exportTimeout is how long an export may take: the database's bound for it and a little.
const exportTimeout = store.ExportStatementTimeout + 10*time.Second

// isExportPath reports whether path is an export, which may take longer than a page.
func isExportPath(path string) bool {
	return strings.HasSuffix(path, "/export.csv") || strings.HasSuffix(path, "/export.json") ||
		strings.HasPrefix(path, "/api/v1/courses/") || path == "/api/v1/audit"
}

// exportColumn is one column of an export. JSON names it by its English name, a stable
// identifier for scripts whatever the reader's language (the API's clients depend on it); a CSV,
// opened by a person in a spreadsheet, heads it in that person's language, from the catalogue's
// export.col.<key>.
type exportColumn struct {
	key  string
	name string
}

// exportColumns makes columns of English names; the key is the name in snake case.
func exportColumns(names ...string) []exportColumn {
	out := make([]exportColumn, len(names))
	for i, n := range names {
		out[i] = exportColumn{key: strings.Trim(nonWord.ReplaceAllString(strings.ToLower(n), "_"), "_"), name: n}
	}
	return out
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// exportEncoder writes an export in one format.
type exportEncoder interface {
	head(columns []string, h store.ExportHead) error
	row(cells []string) error
	end() error
}

// csvEncoder writes CSV with a byte-order mark, made safe for a spreadsheet of either
// convention (csvCell).
type csvEncoder struct {
	w   *bufio.Writer
	n   int
	buf []byte
}

func (e *csvEncoder) head(columns []string, _ store.ExportHead) error {
	return e.write(columns)
}

func (e *csvEncoder) row(cells []string) error {
	if err := e.write(cells); err != nil {
		return err
	}
	if e.n++; e.n%500 == 0 {
		return e.w.Flush()
	}
	return nil
}

// write writes one record: its cells, each made safe, separated by commas.
func (e *csvEncoder) write(cells []string) error {
	e.buf = e.buf[:0]
	for i, c := range cells {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendCSVCell(e.buf, c)
	}
	e.buf = append(e.buf, '\n')
	_, err := e.w.Write(e.buf)
	return err
}

func (e *csvEncoder) end() error { return e.w.Flush() }

// csvSeparators are the characters a spreadsheet may split a line on: the comma, the semicolon
// a Finnish or Swedish spreadsheet uses instead (where the comma is the decimal sign), and the
// tab some guess; a line break ends a record in every convention.
const csvSeparators = ",;\t\r\n"

// appendCSVCell appends c to b as one CSV cell that no spreadsheet runs as a formula, whichever
// convention it reads the file with. The file is written with commas, but a spreadsheet set to
// semicolons reads the same line with its own separator, and honours a quote only at the start of
// what it takes for a cell: in `id,"Anna;=cmd()"` it sees `id,"Anna` and `=cmd()"`. So, beyond
// quoting:
//   - every place either convention may start a cell (the cell's start, and just after a comma,
//     semicolon, tab or line break inside it) that begins, after spaces and quotes, with = + - or
//     @ gets an apostrophe there, which spreadsheets show as text: "Anna;'=cmd()";
//   - a cell starting with a tab or carriage return gets one too, as a spreadsheet may drop them;
//   - a cell holding a separator of either convention, a quote or a line break is quoted, so the
//     comma convention reads it whole.
//
// A name or a reason someone typed is then shown, never run; JSON keeps the text as typed.
func appendCSVCell(b []byte, c string) []byte {
	c = neutralise(c)
	if c == "" || !strings.ContainsAny(c, csvSeparators+`"`) && c[0] != ' ' {
		return append(b, c...)
	}
	b = append(b, '"')
	for i := 0; i < len(c); i++ {
		if c[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, c[i])
	}
	return append(b, '"')
}

// neutralise puts an apostrophe wherever a spreadsheet of either convention could start a cell
// that it would read as a formula (see appendCSVCell).
func neutralise(c string) string {
	if c == "" {
		return c
	}
	var out []byte
	last := 0
	for start := 0; start < len(c); {
		if formulaAt(c[start:]) || start == 0 && (c[0] == '\t' || c[0] == '\r') {
			out = append(out, c[last:start]...)
			out = append(out, '\'')
			last = start
		}
		next := strings.IndexAny(c[start:], csvSeparators)
		if next < 0 {
			break
		}
		start += next + 1
	}
	if out == nil {
		return c
	}
	return string(append(out, c[last:]...))
}

// formulaAt reports whether a spreadsheet cell starting with s would be read as a formula: its
// first character after spaces and quotes is = + - or @.
func formulaAt(s string) bool {
	s = strings.TrimLeft(s, ` "`)
	return s != "" && strings.ContainsRune("=+-@", rune(s[0]))
}

// jsonEncoder writes {"columns": [...], "rows": [{column: value}...], "count": n, "truncated": b,
// "limit": n}, one row at a time.
type jsonEncoder struct {
	w       *bufio.Writer
	columns []string
	h       store.ExportHead
	n       int
	limit   int
}

func (e *jsonEncoder) head(columns []string, h store.ExportHead) error {
	e.columns, e.h = columns, h
	cols, err := json.Marshal(columns)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.w, `{"columns":%s,"rows":[`, cols)
	return err
}

func (e *jsonEncoder) row(cells []string) error {
	if e.n > 0 {
		if err := e.w.WriteByte(','); err != nil {
			return err
		}
	}
	e.n++
	// An object keyed by column, in column order: json.Marshal of a map would sort the keys.
	if err := e.w.WriteByte('{'); err != nil {
		return err
	}
	for i, c := range cells {
		k, _ := json.Marshal(e.columns[i])
		v, _ := json.Marshal(c)
		if i > 0 {
			_ = e.w.WriteByte(',')
		}
		_, _ = e.w.Write(k)
		_ = e.w.WriteByte(':')
		if _, err := e.w.Write(v); err != nil {
			return err
		}
	}
	return e.w.WriteByte('}')
}

func (e *jsonEncoder) end() error {
	if _, err := fmt.Fprintf(e.w, `],"count":%d,"truncated":%t,"limit":%d}`+"\n", e.n, e.h.Truncated, e.limit); err != nil {
		return err
	}
	return e.w.Flush()
}

// export is one export in progress: the answer's headers are written with its head, so a mistake
// before the first row is still an error page.
type export struct {
	s       *Server
	w       http.ResponseWriter
	r       *http.Request
	name    string
	format  string
	columns []exportColumn
	enc     exportEncoder
	started bool
	// inline, when above 0, is the most rows this answer streams itself: a longer export stops
	// before its first byte (errExportLong) and runs as a job with a progress page (export_jobs.go).
	inline int
	// head and progress, when set, are told the export's size and each row written, for a job's
	// progress page.
	onHead   func(store.ExportHead)
	progress func(written int)
	written  int
}

// errExportLong stops an export whose rows are more than its answer streams itself.
var errExportLong = errors.New("export: long enough for a job")

// row writes one row.
func (e *export) row(cells []string) error {
	if err := e.enc.row(cells); err != nil {
		return err
	}
	e.written++
	if e.progress != nil {
		e.progress(e.written)
	}
	return nil
}

// newExport starts an export of the list called name, in the format of the path's extension.
func (s *Server) newExport(w http.ResponseWriter, r *http.Request, name string, columns []exportColumn) *export {
	// CSV only when asked for by name; the API's lists are JSON.
	format := "json"
	if strings.HasSuffix(r.URL.Path, ".csv") {
		format = "csv"
	}
	// The whole answer may take longer than a page's write deadline.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(exportTimeout))
	return &export{s: s, w: w, r: r, name: name, format: format, columns: columns}
}

// head writes the answer's headers and the columns.
func (e *export) head(h store.ExportHead) error {
	if e.inline > 0 && h.Rows > e.inline {
		return errExportLong
	}
	if e.onHead != nil {
		e.onHead(h)
	}
	hd := e.w.Header()
	stamp := time.Now().In(schedule.Helsinki()).Format("20060102-1504")
	if !strings.HasPrefix(e.r.URL.Path, "/api/") {
		hd.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="regdesk-%s-%s.%s"`, e.name, stamp, e.format))
	}
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Export-Rows", strconv.Itoa(h.Rows))
	hd.Set("X-Export-Limit", strconv.Itoa(e.s.exportLimit))
	hd.Set("X-Export-Truncated", strconv.FormatBool(h.Truncated))
	bw := bufio.NewWriterSize(e.w, 32<<10)
	if e.format == "json" {
		hd.Set("Content-Type", "application/json; charset=utf-8")
		e.enc = &jsonEncoder{w: bw, limit: e.s.exportLimit}
	} else {
		hd.Set("Content-Type", "text/csv; charset=utf-8")
		// The byte-order mark tells a spreadsheet the file is UTF-8, so "Äijälä" opens as written.
		_, _ = bw.WriteString("\uFEFF")
		e.enc = &csvEncoder{w: bw}
	}
	names := make([]string, len(e.columns))
	loc := i18n.From(e.r.Context())
	for i, c := range e.columns {
		names[i] = c.name
		if e.format == "csv" {
			names[i] = loc.Code("export.col", c.key)
		}
	}
	e.w.WriteHeader(http.StatusOK)
	e.started = true
	return e.enc.head(names, h)
}

// finish ends the export. An error after the first byte cannot become an error page: it is
// logged, and the answer ends short (a CSV without its last rows, a JSON that does not parse).
func (e *export) finish(err error) error {
	if err == nil && e.started {
		err = e.enc.end()
	}
	if err != nil && e.started {
		e.s.log.ErrorContext(e.r.Context(), "export ended early", "export", e.name, "err", err, "request_id", requestIDFrom(e.r.Context()))
		return nil
	}
	return err
}

// isoTime writes an instant as ISO 8601 in Helsinki time with its offset; "" for none.
func isoTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.In(schedule.Helsinki()).Format(time.RFC3339)
}

// queueColumns are the queue table's columns, and what an export adds to them.
var queueColumns = exportColumns("Registration id", "Student", "Student number", "E-mail", "Course", "Module", "Course code", "State", "Error code", "Attempt", "Phase", "Next check", "Escalates", "Attention", "On it", "On it since", "Waiting since", "Last activity")

// queueExport is the queue under its filter as CSV or JSON: GET /queue/export.csv, …/export.json,
// with the queue's own query string. Every matching row in the person's courses, up to the cap.
func (s *Server) queueExport(w http.ResponseWriter, r *http.Request) error {
	q, err := query(r)
	if err != nil {
		return err
	}
	p, err := parseQueueParams(q)
	if err != nil {
		return err
	}
	p.after = nil
	now := s.clock()
	f := s.queueFilter(r, p, s.courseScope(r))
	return s.runExport(w, r, "queue", queueColumns, func(e *export) error {
		return s.store.RegistrationExport(e.r.Context(), now, f, s.exportLimit, e.head, func(row store.RegistrationListRow) error {
			return e.row(s.queueExportCells(row, now))
		})
	})
}

// runExport writes an export by write, which reads its rows with e's context and writes them
// with e.row. A person's export (not the API's) of more rows than Server.exportInlineRows is not
// streamed: it runs as a job, and the person is sent to its progress page.
func (s *Server) runExport(w http.ResponseWriter, r *http.Request, name string, columns []exportColumn, write func(e *export) error) error {
	e := s.newExport(w, r, name, columns)
	if !strings.HasPrefix(r.URL.Path, "/api/") {
		e.inline = s.exportInlineRows
	}
	err := write(e)
	if errors.Is(err, errExportLong) {
		return s.exportInBackground(w, r, name, columns, write)
	}
	return e.finish(err)
}

func (s *Server) queueExportCells(row store.RegistrationListRow, now time.Time) []string {
	st := row.Status(now)
	reasons := make([]string, 0, st.Reasons.Len())
	for _, x := range st.Reasons.List() {
		reasons = append(reasons, string(x))
	}
	var who, since, waiting string
	if c := row.ClaimColumns.Claim(now, s.claimLapse); c != nil {
		who, since = c.AccountName, isoTime(&c.ClaimedAt)
	}
	if st.NeedsAdmin {
		at := waitingSince(row.ScheduleColumns)
		waiting = isoTime(&at)
	}
	return []string{row.ID, row.StudentName, store.Deref(row.StudentNumber), row.StudentEmail, row.CourseName, row.ModuleName,
		store.Deref(row.UhCourseCode), string(row.State), string(row.ErrorCode), strconv.Itoa(int(row.AttemptNumber)),
		string(st.Phase), isoTime(instant(st.NextCheckAt)), isoTime(instant(st.EscalatesAt)), strings.Join(reasons, " "), who, since,
		waiting, isoTime(&row.UpdatedAt)}
}

// courseColumns are the course page's columns, with the group each row is listed under.
var courseColumns = exportColumns("Registration id", "Status", "Student", "Student number", "Module", "Grade", "Waits on", "What happens next")

// courseExport is a course's registrations as its page lists them: GET /courses/{id}/export.csv,
// …/export.json. A course outside the person's courses is not found.
func (s *Server) courseExport(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	now := s.clock()
	loc := i18n.From(r.Context())
	scope := s.courseScope(r)
	return s.runExport(w, r, "course", courseColumns, func(e *export) error {
		return s.store.RegistrationExportByCourse(e.r.Context(), now, id, scope, s.exportLimit, e.head, func(row store.RegistrationOverview) error {
			sum := row.StudentView(row.Preconditions(), now)
			vm := courseRowVM(loc, row, sum, now)
			return e.row([]string{row.ID, loc.Code("studentStatus", string(sum.Status)), vm.StudentName, vm.StudentNumber, vm.Module, vm.Grade,
				vm.WaitsOnLabel, vm.Sentence})
		})
	})
}

// auditColumns are the audit page's columns, the state split into its two ends.
var auditColumns = exportColumns("Entry id", "When", "Who", "Role", "Action", "Registration", "Registration id", "State before", "State after", "Reason", "Rows")

// auditExport is the audit under its filter: GET /audit/export.csv, …/export.json.
func (s *Server) auditExport(w http.ResponseWriter, r *http.Request) error {
	q, err := query(r)
	if err != nil {
		return err
	}
	p, err := parseAuditParams(q)
	if err != nil {
		return err
	}
	now := s.clock()
	loc := i18n.From(r.Context())
	f := p.filter()
	return s.runExport(w, r, "audit", auditColumns, func(e *export) error {
		return s.store.AuditExport(e.r.Context(), f, s.exportLimit, e.head, func(a store.AuditEntry) error {
			vm := auditRowVM(loc, a, now)
			return e.row([]string{a.ID, isoTime(&a.CreatedAt), vm.Who, a.ActorRole, vm.Action, vm.TargetLabel,
				store.Deref(a.TargetID), vm.Before.Code, vm.After.Code, a.Reason, strconv.Itoa(int(a.Affected))})
		})
	})
}

// exportLinks are the export links of a list page for its query string.
func (s *Server) exportLinks(base, rawQuery string) views.ExportLinksVM {
	suffix := ""
	if rawQuery != "" {
		suffix = "?" + rawQuery
	}
	return views.ExportLinksVM{CSV: base + "/export.csv" + suffix, JSON: base + "/export.json" + suffix,
		Limit: views.Count(int64(s.exportLimit))}
}
