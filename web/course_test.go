package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"regdesk/store/storetest"
)

func TestCoursePageGroupsByStudentFacingStatus(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, other := b.otherCourseStudent(t)
	cai := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "Cai", LastName: "Lindqvist", Email: "cai@example.invalid", StudentNumber: "015000003"})
	parked := storetest.AddRegistration(t, b.store, storetest.Registration{
		Student: cai, Course: b.course, State: "no_usable_enrolment", ErrorCode: "enrolment_not_found",
		StateChangedAt: testNow.Add(-2 * time.Hour), NextAttemptAt: testNow.Add(3 * time.Hour),
	})
	teacher := b.login(t, b.teacher)

	resp, body := b.getWith(t, teacher, "/courses/"+b.course.ID, false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200", resp.StatusCode)
	}
	for _, want := range []string{
		`data-testid="status-count-needs_enrolment" data-count="1"`, `data-testid="status-count-failed" data-count="1"`,
		`data-testid="status-count-waiting_for_sisu" data-count="2"`, `data-testid="status-count-registered" data-count="1"`,
		// The student who can act leads, and says so.
		`data-testid="status-group" data-status="needs_enrolment" data-student-can-act="true"`,
		`data-testid="course-row" data-id="` + parked + `" data-waits-on="student"`,
		`href="/students/` + cai.ID + `#reg-` + parked + `"`,
		"Sisu has no enrolment of the student on the course, so they need to enrol",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the teacher's course page lacks %s", want)
		}
	}
	if strings.Contains(body, "status-count-sending") {
		t.Errorf("the course page counts a status no registration has")
	}
	order := []string{`data-status="needs_enrolment"`, `data-status="failed"`, `data-status="waiting_for_sisu"`, `data-status="registered"`}
	for i := 1; i < len(order); i++ {
		if strings.Index(body, `data-testid="status-group" `+order[i-1]) > strings.Index(body, `data-testid="status-group" `+order[i]) {
			t.Errorf("group %s comes after %s; want the students who can act first, the finished last", order[i-1], order[i])
		}
	}
	for _, word := range append(internalWords, "data-testid=\"course-queue-link\"", "group-queue-link", "no_usable_enrolment") {
		if strings.Contains(body, word) {
			t.Errorf("the teacher's course page shows %q", word)
		}
	}

	// Support staff get the queue, filtered by the course, and by state where a status is exactly some states.
	_, body = b.get(t, "/courses/"+b.course.ID, false)
	for _, want := range []string{
		`href="/?course=` + b.course.ID + `&amp;show=all"`, `href="/?course=` + b.course.ID + `&amp;show=needs_admin"`,
		`href="/?course=` + b.course.ID + `&amp;show=all&amp;state=no_usable_enrolment"`,
		`href="/?course=` + b.course.ID + `&amp;show=all&amp;state=submission_uncertain&amp;state=awaiting_verification"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("support's course page lacks %s", want)
		}
	}

	// Another course is not the teacher's to see.
	for _, path := range []string{"/courses/" + other, "/courses/" + storetest.NewID(), "/courses/TKT10004"} {
		if resp, body := b.getWith(t, teacher, path, false); resp.StatusCode != http.StatusNotFound || strings.Contains(body, "Tietokantojen") {
			t.Errorf("teacher GET %s = %d, want a 404 that names nothing", path, resp.StatusCode)
		}
	}
	if resp, _ := b.get(t, "/courses/"+other, false); resp.StatusCode != http.StatusOK {
		t.Errorf("support GET the other course = %d, want 200", resp.StatusCode)
	}
}

func TestCourseListIsTheTeachersLanding(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, other := b.otherCourseStudent(t)
	teacher := b.login(t, b.teacher)

	// A teacher's / is their courses; any filtered queue link still opens the queue.
	resp, _ := b.getWith(t, teacher, "/", false)
	if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != "/courses" {
		t.Errorf("teacher GET / = %d → %q, want 303 → /courses", resp.StatusCode, got)
	}
	req, err := http.NewRequest(http.MethodGet, b.server.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Boosted", "true")
	if resp, _ := do(t, teacher, req); resp.Header.Get("HX-Redirect") != "/courses" {
		t.Errorf("a teacher's boosted click on / got HX-Redirect %q, want /courses", resp.Header.Get("HX-Redirect"))
	}
	if resp, _ := b.getWith(t, teacher, "/?show=all", false); resp.StatusCode != http.StatusOK {
		t.Errorf("teacher GET /?show=all = %d, want the queue", resp.StatusCode)
	}

	_, body := b.getWith(t, teacher, "/courses", false)
	if !strings.Contains(body, `data-testid="course-item" data-id="`+b.course.ID+`"`) || strings.Contains(body, other) {
		t.Errorf("the teacher's course list = want only their course:\n%s", body)
	}
	if !strings.Contains(body, `<a href="/courses" aria-current="page">My courses</a>`) || strings.Contains(body, ">Queue<") {
		t.Errorf("the teacher's top bar should offer their courses and not the queue")
	}
	_, body = b.get(t, "/courses", false)
	if !strings.Contains(body, `data-id="`+b.course.ID+`"`) || !strings.Contains(body, `data-id="`+other+`"`) {
		t.Errorf("support's course list lacks a course")
	}
	if !strings.Contains(body, `<a href="/">Queue</a>`) {
		t.Errorf("support's top bar lacks the queue")
	}
	// A teacher of no course is told what to do.
	lonely := b.addAccount(t, "Leo Lonely", "leo@example.invalid", "teacher")
	if _, body := b.getWith(t, b.login(t, lonely), "/courses", false); !strings.Contains(body, `data-testid="courses-empty"`) {
		t.Errorf("a teacher of no course sees no explanation")
	}
}
