package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"regdesk/store/storetest"
)

// internalWords are the pipeline's states, codes and reasons the bundle's rows carry: a teacher's
// page must name none of them.
var internalWords = []string{
	"submission_uncertain", "failed_permanent", "awaiting_verification", "course_not_allowed", "sisu_timeout",
	"outcome_uncertain", "uncertain_overdue", "permanent_error", "data-state", "Pipeline details",
}

// otherCourseStudent adds a student whose only registration is in another course than the
// teacher's; the name matches a search for "aijala" too.
func (b *testBundle) otherCourseStudent(t *testing.T) (studentID, courseID string) {
	t.Helper()
	other := storetest.AddCourse(t, b.store, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT10004"})
	otto := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "Otto", LastName: "Äijälä", Email: "otto@example.invalid", StudentNumber: "016000002"})
	storetest.AddRegistration(t, b.store, storetest.Registration{
		Student: otto, Course: other, State: "failed_permanent", ErrorCode: "course_not_allowed",
		NeedsAdminAttention: true, StateChangedAt: testNow.Add(-time.Hour),
	})
	return otto.ID, other.ID
}

func TestStudentSearchIsScopedAndIgnoresAccentsAndCase(t *testing.T) {
	t.Parallel()
	b := setup(t)
	otto, _ := b.otherCourseStudent(t)
	teacher := b.login(t, b.teacher)

	for _, q := range []string{"AIJALA", "äij", "anna aij", "014979622", "ANNA.AIJALA@"} {
		resp, body := b.getWith(t, teacher, "/students/search?q="+url.QueryEscape(q), true)
		if resp.StatusCode != http.StatusOK || strings.Contains(body, "<html") {
			t.Fatalf("teacher's search %q = %d, want 200 and the dropdown alone:\n%s", q, resp.StatusCode, body)
		}
		if !strings.Contains(body, `data-student-id="`+b.anna.ID+`"`) {
			t.Errorf("teacher's search %q does not find Anna Äijälä:\n%s", q, body)
		}
		if strings.Contains(body, otto) || strings.Contains(body, "Otto") {
			t.Errorf("teacher's search %q finds Otto, who is not in the teacher's course", q)
		}
		if !strings.Contains(body, "Only students of your courses are searched.") {
			t.Errorf("teacher's search %q does not say it is limited to their courses", q)
		}
	}
	// Support staff find everyone.
	_, body := b.get(t, "/students/search?q=aijala", true)
	if !strings.Contains(body, `data-student-id="`+b.anna.ID+`"`) || !strings.Contains(body, `data-student-id="`+otto+`"`) {
		t.Errorf("support's search for aijala does not find both students:\n%s", body)
	}
	if strings.Contains(body, "Only students of your courses") {
		t.Errorf("support's search claims to be limited to their courses")
	}
	// Without JavaScript the form leads to the results page.
	resp, page := b.getWith(t, teacher, "/students?q=aijala", false)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, `data-testid="student-results"`) ||
		!strings.Contains(page, `href="/students/`+b.anna.ID+`"`) || strings.Contains(page, "Otto") {
		t.Errorf("the results page = %d, want Anna and not Otto:\n%s", resp.StatusCode, page)
	}
	if !strings.Contains(page, `value="aijala"`) {
		t.Errorf("the results page does not keep the query in the search box")
	}
	// The dropdown's address opened as a page leads there too.
	resp, _ = b.getWith(t, teacher, "/students/search?q=aijala", false)
	if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != "/students?q=aijala" {
		t.Errorf("GET /students/search without htmx = %d → %q, want 303 → /students?q=aijala", resp.StatusCode, got)
	}
}

func TestStudentSearchShortAndBadQueries(t *testing.T) {
	t.Parallel()
	b := setup(t)

	// Nothing to search yet: the dropdown closes, empty.
	for _, q := range []string{"", "a", "  ", "Ä"} {
		resp, body := b.get(t, "/students/search?q="+url.QueryEscape(q), true)
		if resp.StatusCode != http.StatusOK || strings.Contains(body, "open") || !strings.Contains(body, `data-count="0"`) ||
			strings.Contains(body, "<p") {
			t.Errorf("search %q = %d, want a closed, empty dropdown:\n%s", q, resp.StatusCode, body)
		}
	}
	// Two letters search only whole student numbers; the dropdown says how to find a name.
	_, body := b.get(t, "/students/search?q=an", true)
	if !strings.Contains(body, `data-testid="search-empty"`) || !strings.Contains(body, "at least three letters") {
		t.Errorf("search an: want a hint to type more:\n%s", body)
	}

	bad := map[string]string{
		"TooLong":  strings.Repeat("a", 300),
		"NotUTF8":  "\xff\xfe",
		"NulByte":  "anna\x00",
		"Newlines": "anna\nbob",
	}
	for name, q := range bad {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, htmx := range []bool{true, false} {
				path := "/students/search?q=" + url.QueryEscape(q)
				if !htmx {
					path = "/students?q=" + url.QueryEscape(q)
				}
				resp, body := b.get(t, path, htmx)
				if resp.StatusCode != http.StatusUnprocessableEntity {
					t.Errorf("GET %s (htmx %v) = %d, want 422", path, htmx, resp.StatusCode)
				}
				if !strings.Contains(body, `data-testid="search-message"`) {
					t.Errorf("GET %s (htmx %v) shows no message:\n%s", path, htmx, body)
				}
				if strings.Contains(strings.ToLower(body), "sql") || strings.Contains(body, "pgx") {
					t.Errorf("GET %s leaks internals", path)
				}
			}
		})
	}
	if _, body := b.get(t, "/students/search?q="+strings.Repeat("a", 300), true); !strings.Contains(body, "use at most 100") {
		t.Errorf("a 300-character search does not say the limit")
	}
}

func TestStudentPageInPlainWordsForTeachers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	teacher := b.login(t, b.teacher)

	resp, body := b.getWith(t, teacher, "/students/"+b.anna.ID, false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200", resp.StatusCode)
	}
	for _, want := range []string{
		`data-testid="student-name">Anna Äijälä<`, `data-testid="student-number">014979622<`, "anna.aijala@example.invalid",
		// Both registrations, the newer first, by student-facing status.
		`data-testid="registration-card" data-id="` + b.permanent + `" data-status="failed" data-waits-on="course_setup"`,
		`data-testid="registration-card" data-id="` + b.uncertainOverdue + `" data-status="waiting_for_sisu" data-waits-on="support"`,
		`data-testid="status" title="The credit has been sent; Sisu has not confirmed it yet.">Waiting for Sisu<`,
		"Grade 4 on the 0–5 scale", "5 credits",
		// The sentence and the message of the uncertain row.
		"It is not yet clear whether Sisu received the credit",
		"Your credits for Ohjelmoinnin perusteet have been sent to Sisu, and we are checking that they arrived.",
		`data-testid="copy-message"`, `data-copy-target="message-` + b.uncertainOverdue + `"`,
		`<textarea id="message-` + b.uncertainOverdue + `" lang="en" readonly`,
		`href="/courses/` + b.course.ID + `"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the teacher's student page lacks %s", want)
		}
	}
	if strings.Index(body, b.permanent) > strings.Index(body, b.uncertainOverdue) {
		t.Errorf("the older registration comes first; want newest first")
	}
	for _, word := range internalWords {
		if strings.Contains(body, word) {
			t.Errorf("the teacher's student page shows the internal %q", word)
		}
	}
	if strings.Contains(body, `href="/registrations/`) {
		t.Errorf("the teacher's student page links to the pipeline's registration page")
	}

	// Support staff get the same words, and the pipeline's one click away.
	_, body = b.get(t, "/students/"+b.anna.ID, false)
	for _, want := range []string{
		`data-testid="pipeline-details"`, "<summary>Pipeline details</summary>",
		`data-testid="pipeline-state" data-state="submission_uncertain" title="submission_uncertain">Submission uncertain<`,
		`data-testid="pipeline-error" data-code="sisu_timeout">Sisu did not answer in time`, `<code class="aside">sisu_timeout</code>`,
		`data-reason="outcome_uncertain"`, `data-note="uncertain_overdue"`, `href="/registrations/` + b.uncertainOverdue + `"`,
		"It is not yet clear whether Sisu received the credit",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("support's student page lacks %s", want)
		}
	}
}

func TestStudentPageIsNotFoundOutsideTheTeachersCourses(t *testing.T) {
	t.Parallel()
	b := setup(t)
	otto, _ := b.otherCourseStudent(t)
	teacher := b.login(t, b.teacher)

	for _, path := range []string{"/students/" + otto, "/students/" + storetest.NewID(), "/students/not-a-uuid"} {
		resp, body := b.getWith(t, teacher, path, false)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("teacher GET %s = %d, want 404", path, resp.StatusCode)
		}
		if strings.Contains(body, "Otto") || strings.Contains(body, "016000002") {
			t.Errorf("teacher GET %s names the other course's student", path)
		}
	}
	if resp, _ := b.get(t, "/students/"+otto, false); resp.StatusCode != http.StatusOK {
		t.Errorf("support GET /students/{otto} = %d, want 200", resp.StatusCode)
	}
}

func TestCoursePageFoldsLongListsOfFinishedRegistrations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, before := b.get(t, "/courses/"+b.course.ID, false)
	if strings.Contains(before, `data-testid="group-fold"`) {
		t.Fatalf("a course with one registered row folds it")
	}
	for i := range 11 {
		storetest.AddRegistration(t, b.store, storetest.Registration{
			Student: b.anna, Course: b.course, State: "registered", StateChangedAt: testNow.Add(-time.Duration(i+60) * time.Hour),
		})
	}
	resp, body := b.get(t, "/courses/"+b.course.ID, false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	i := strings.Index(body, `data-status="registered"`)
	if i < 0 || !strings.Contains(body[i:], `data-testid="group-fold"`) {
		t.Errorf("twelve registered rows are not folded")
	}
	if j := strings.Index(body, `data-status="failed"`); j >= 0 && strings.Contains(body[j:min(len(body), j+600)], `group-fold`) {
		t.Errorf("the failed group, which needs someone, is folded")
	}
}
