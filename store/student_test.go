package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// exec runs a statement the fixtures have no field for.
func exec(t *testing.T, st *store.Store, sql string, args ...any) {
	t.Helper()
	storetest.LMSExec(t, st, sql, args...)
}

func searchIDs(t *testing.T, st *store.Store, query string, scope store.Scope) []string {
	t.Helper()
	rows, err := st.StudentSearch(context.Background(), query, scope, 20)
	if err != nil {
		t.Fatalf("StudentSearch(%q): %v", query, err)
	}
	ids := []string{}
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	return ids
}

func TestStudentSearchRanksNumbersThenNames(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)

	exact := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Virtanen", Email: "anna.virtanen@example.fi", StudentNumber: "012345678"})
	prefix := storetest.AddStudent(t, st, storetest.Student{FirstName: "Bertta", LastName: "Aalto", Email: "bertta@example.fi", StudentNumber: "0123456789"})
	inEmail := storetest.AddStudent(t, st, storetest.Student{FirstName: "Cecilia", LastName: "Berg", Email: "x012345678y@example.fi", StudentNumber: "999999999"})
	wordStart := storetest.AddStudent(t, st, storetest.Student{FirstName: "Aaro", LastName: "Virtala", Email: "aaro@example.fi"})
	inside := storetest.AddStudent(t, st, storetest.Student{FirstName: "Liisa", LastName: "Koivirta", Email: "liisa@example.fi"})

	tests := []struct {
		query string
		want  []string
	}{
		{"012345678", []string{exact.ID, prefix.ID}}, // digits are a student number, not a part of an e-mail
		{"x012345678y", []string{inEmail.ID}},
		{" 0123456789 ", []string{prefix.ID}},
		{"virta", []string{wordStart.ID, exact.ID, inside.ID}},
		{"bertta@example.fi", []string{prefix.ID}},
	}
	for _, tc := range tests {
		if got := searchIDs(t, st, tc.query, store.AllCourses()); !slices.Equal(got, tc.want) {
			t.Errorf("StudentSearch(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
	rows, err := st.StudentSearch(context.Background(), "012345678", store.AllCourses(), 1)
	if err != nil || len(rows) != 1 || rows[0].ID != exact.ID {
		t.Fatalf("StudentSearch limit 1 = %+v, %v; want only the exact number", rows, err)
	}
	if r := rows[0]; r.Name != "Anna Virtanen" || r.Email != "anna.virtanen@example.fi" || r.StudentNumber == nil || *r.StudentNumber != "012345678" || r.RegistrationCount != 0 {
		t.Errorf("row = %+v", r)
	}
}

func TestStudentSearchIgnoresCaseAndAccents(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)

	aijala := storetest.AddStudent(t, st, storetest.Student{FirstName: "Örjan", LastName: "Äijälä", Email: "Orjan.Aijala@Example.fi"})
	anna := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Virtanen", Email: "av@example.fi"})
	storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Korhonen", Email: "ak@example.fi"})

	tests := []struct {
		query string
		want  []string
	}{
		{"aijala", []string{aijala.ID}},
		{"ÄIJÄLÄ", []string{aijala.ID}},
		{"AiJä", []string{aijala.ID}},
		{"orjan", []string{aijala.ID}},
		{"orjan.aijala@", []string{aijala.ID}},
		{"anna virt", []string{anna.ID}},
		{"Virtanen  ANNA", []string{anna.ID}},
		{"anna mäkinen", []string{}},
	}
	for _, tc := range tests {
		if got := searchIDs(t, st, tc.query, store.AllCourses()); !slices.Equal(got, tc.want) {
			t.Errorf("StudentSearch(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
}

func TestStudentSearchShortAndOddQueries(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)

	numbered := storetest.AddStudent(t, st, storetest.Student{FirstName: "Li", LastName: "Wu", Email: "lw@example.fi", StudentNumber: "120000000"})
	storetest.AddStudent(t, st, storetest.Student{FirstName: "Ann", LastName: "Li", Email: "a_b@example.fi"})
	storetest.AddStudent(t, st, storetest.Student{FirstName: "Axb", LastName: "Percent", Email: "axb@example.fi"})

	tests := []struct {
		query string
		want  int
	}{
		{"", 0},
		{"   ", 0},
		{"li", 0}, // too short for a name; no such number
		{"12", 0}, // too short for a name or a number
		{"120000000", 1},
		{"li wu", 1}, // short words, but the phrase is long enough
		{"%", 0},
		{"a_b", 1}, // the underscore is a character, not a wildcard
		{"%%%", 0},
	}
	for _, tc := range tests {
		if got := searchIDs(t, st, tc.query, store.AllCourses()); len(got) != tc.want {
			t.Errorf("StudentSearch(%q) found %d, want %d", tc.query, len(got), tc.want)
		}
	}
	if got := searchIDs(t, st, "120000000", store.AllCourses()); len(got) != 1 || got[0] != numbered.ID {
		t.Errorf("StudentSearch(120000000) = %v, want %s", got, numbered.ID)
	}
	if rows, err := st.StudentSearch(context.Background(), "ann", store.AllCourses(), 0); err != nil || rows != nil {
		t.Errorf("StudentSearch limit 0 = %v, %v; want nothing", rows, err)
	}
}

// TestStudentSearchUsesTrigramIndex keeps the search sargable: with sequential scans priced out,
// a name search must go through the GIN trigram indexes of regdesk's copy of the search columns
// (person_search). (On 300,000 students the planner chooses these by itself; a few thousand are
// enough to show it can.)
func TestStudentSearchUsesTrigramIndex(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()

	exec(t, st, `WITH u AS (INSERT INTO users (id) SELECT gen_random_uuid() FROM generate_series(1, 3000) RETURNING id)
INSERT INTO user_details (user_id, first_name, last_name, email)
SELECT id, 'F' || n, 'L' || md5(n::text), 'user' || n || '@example.fi' FROM (SELECT id, row_number() OVER () AS n FROM u) x`)
	storetest.SyncMirror(t, st)
	exec(t, st, `ANALYZE user_details`)
	exec(t, st, `ANALYZE person_search`)

	for _, q := range []string{"virta", "anna virt", "li wu", "äijälä"} {
		for _, scope := range []store.Scope{store.AllCourses(), store.CoursesOnly([]string{storetest.NewID()})} {
			plan, err := st.StudentSearchPlanForTest(ctx, q, scope)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plan, "idx_person_search_name") || !strings.Contains(plan, "idx_person_search_email") {
				t.Errorf("plan of %q (scope %v) does not use person_search's name and e-mail trigram indexes:\n%s", q, scope, plan)
			}
		}
	}
}

func TestStudentTeacherScope(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()

	mine := storetest.AddCourse(t, st, storetest.Course{Name: "Mine", Code: "TKT1"})
	other := storetest.AddCourse(t, st, storetest.Course{Name: "Other", Code: "TKT2"})
	both := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Virtanen", Email: "a@example.fi", StudentNumber: "010000011"})
	elsewhere := storetest.AddStudent(t, st, storetest.Student{FirstName: "Aino", LastName: "Virtanen", Email: "b@example.fi", StudentNumber: "010000012"})
	mineRow := storetest.AddRegistration(t, st, storetest.Registration{Student: both, Course: mine})
	storetest.AddRegistration(t, st, storetest.Registration{Student: both, Course: other})
	elsewhereRow := storetest.AddRegistration(t, st, storetest.Registration{Student: elsewhere, Course: other})
	scope := store.CoursesOnly([]string{mine.ID})

	rows, err := st.StudentSearch(ctx, "virtanen", scope, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].ID != both.ID || rows[0].RegistrationCount != 1 {
		t.Errorf("teacher's search = %+v, want only %s with 1 registration", rows, both.ID)
	}
	rows, err = st.StudentSearch(ctx, "virtanen", store.AllCourses(), 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != elsewhere.ID || rows[1].ID != both.ID || rows[1].RegistrationCount != 2 {
		t.Errorf("support's search = %+v, want both students, %s with 2 registrations", rows, both.ID)
	}
	if got := searchIDs(t, st, "010000012", scope); len(got) != 0 {
		t.Errorf("teacher's search by the other student's number = %v, want nothing", got)
	}
	if got := searchIDs(t, st, "virtanen", store.CoursesOnly(nil)); len(got) != 0 {
		t.Errorf("search with an empty scope = %v, want nothing", got)
	}

	if _, err := st.StudentGet(ctx, elsewhere.ID, scope); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("StudentGet(other course's student) error = %v, want ErrNotFound", err)
	}
	if _, err := st.StudentGet(ctx, "not-a-uuid", store.AllCourses()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("StudentGet(not-a-uuid) error = %v, want ErrNotFound", err)
	}
	s, err := st.StudentGet(ctx, both.ID, scope)
	if err != nil || s.Name() != "Anna Virtanen" || s.StudentNumber == nil || *s.StudentNumber != "010000011" {
		t.Errorf("StudentGet = %+v, %v", s, err)
	}

	list, err := st.RegistrationListByStudent(ctx, storetest.Now(), both.ID, scope)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != mineRow || list[0].CourseID != mine.ID {
		t.Errorf("RegistrationListByStudent in scope = %+v, want only %s", list, mineRow)
	}
	if list, err := st.RegistrationListByStudent(ctx, storetest.Now(), both.ID, store.AllCourses()); err != nil || len(list) != 2 {
		t.Errorf("RegistrationListByStudent unscoped = %d rows, %v; want 2", len(list), err)
	}

	if _, err := st.CourseGet(ctx, other.ID, scope); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CourseGet(other course) error = %v, want ErrNotFound", err)
	}
	if c, err := st.CourseGet(ctx, mine.ID, scope); err != nil || c.Name != "Mine" {
		t.Errorf("CourseGet(mine) = %+v, %v", c, err)
	}
	if list, err := st.RegistrationListByCourse(ctx, storetest.Now(), other.ID, scope, 50); err != nil || len(list) != 0 {
		t.Errorf("RegistrationListByCourse(other course) = %d rows, %v; want none", len(list), err)
	}
	if counts, err := st.RegistrationCountsByStudentStatus(ctx, other.ID, scope); err != nil || len(counts) != 0 {
		t.Errorf("RegistrationCountsByStudentStatus(other course) = %v, %v; want none", counts, err)
	}
	if _, err := st.EventListSince(ctx, elsewhereRow, time.Time{}, scope); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("EventListSince(other course's row) error = %v, want ErrNotFound", err)
	}
}

// TestPreconditionsView checks each column of credit_registration_preconditions against the fact
// it reads, one fact changed at a time.
func TestPreconditionsView(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()

	type pre struct{ deleted, eligible, number, stale, allowed bool }
	baseline := pre{false, true, true, false, true}
	tests := []struct {
		name   string
		change func(reg, completion, module string) // runs after the row exists
		noNum  bool
		frozen string
		want   pre
	}{
		{"baseline", nil, false, "", baseline},
		{"completion deleted", func(_, c, _ string) {
			exec(t, st, `UPDATE course_module_completions SET deleted_at = $2 WHERE id = $1`, c, storetest.Now())
		}, false, "", pre{true, false, true, false, true}},
		{"not passed", func(_, c, _ string) {
			exec(t, st, `UPDATE course_module_completions SET passed = false WHERE id = $1`, c)
		}, false, "", pre{false, false, true, false, true}},
		{"not eligible for ECTS", func(_, c, _ string) {
			exec(t, st, `UPDATE course_module_completions SET eligible_for_ects = false WHERE id = $1`, c)
		}, false, "", pre{false, false, true, false, true}},
		{"prerequisites missing", func(_, c, _ string) {
			exec(t, st, `UPDATE course_module_completions SET prerequisite_modules_completed = false WHERE id = $1`, c)
		}, false, "", pre{false, false, true, false, true}},
		{"needs review", func(_, c, _ string) {
			exec(t, st, `UPDATE course_module_completions SET needs_to_be_reviewed = true WHERE id = $1`, c)
		}, false, "", pre{false, false, true, false, true}},
		{"no student number", nil, true, "", pre{false, true, false, false, true}},
		{"frozen number differs", nil, false, "099", pre{false, true, true, true, true}},
		{"frozen number, none linked now", nil, true, "099", pre{false, true, false, true, true}},
		{"code rejected", func(_, _, m string) {
			exec(t, st, `INSERT INTO course_module_suotar_configurations (course_module_id, config_checked_at, course_code_allowed, checked_course_code, course_code_rejection)
VALUES ($1, now(), false, (SELECT uh_course_code FROM course_modules WHERE id = $1), 'courseNotAllowed')`, m)
		}, false, "", pre{false, true, true, false, false}},
		{"code rejected, compared trimmed", func(_, _, m string) {
			exec(t, st, `UPDATE course_modules SET uh_course_code = ' ' || uh_course_code || ' ' WHERE id = $1`, m)
			exec(t, st, `INSERT INTO course_module_suotar_configurations (course_module_id, config_checked_at, course_code_allowed, checked_course_code)
VALUES ($1, now(), false, (SELECT btrim(uh_course_code) FROM course_modules WHERE id = $1))`, m)
		}, false, "", pre{false, true, true, false, false}},
		{"a code rejected before the module's code changed", func(_, _, m string) {
			exec(t, st, `INSERT INTO course_module_suotar_configurations (course_module_id, config_checked_at, course_code_allowed, checked_course_code)
VALUES ($1, now(), false, 'OLD-CODE')`, m)
		}, false, "", baseline},
		{"code checked and allowed", func(_, _, m string) {
			exec(t, st, `INSERT INTO course_module_suotar_configurations (course_module_id, config_checked_at, course_code_allowed, checked_course_code)
VALUES ($1, now(), true, (SELECT uh_course_code FROM course_modules WHERE id = $1))`, m)
		}, false, "", baseline},
	}
	for i, tc := range tests {
		number := fmt.Sprintf("0%08d", i)
		if tc.noNum {
			number = ""
		}
		student := storetest.AddStudent(t, st, storetest.Student{FirstName: "S", LastName: tc.name, Email: fmt.Sprintf("s%d@example.fi", i), StudentNumber: number})
		course := storetest.AddCourse(t, st, storetest.Course{Name: tc.name, Code: fmt.Sprintf("TKT%d", i)})
		id := storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: course, StudentNumber: tc.frozen})
		if tc.change != nil {
			var completion string
			if err := st.Pool().QueryRow(ctx, `SELECT course_module_completion_id::text FROM credit_registrations WHERE id = $1`, id).Scan(&completion); err != nil {
				t.Fatal(err)
			}
			tc.change(id, completion, course.ModuleID)
		}
		rows, err := st.RegistrationListByStudent(ctx, storetest.Now(), student.ID, store.AllCourses())
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s: RegistrationListByStudent = %d rows, %v", tc.name, len(rows), err)
		}
		r := rows[0]
		got := pre{r.CompletionDeleted, r.CompletionEligible, r.HasVerifiedStudentNumber, r.FrozenIdentityStale, r.CourseCodeAllowed}
		if got != tc.want {
			t.Errorf("%s: preconditions %+v, want %+v", tc.name, got, tc.want)
		}
		p := r.Preconditions()
		if p.CompletionDeleted != got.deleted || p.CompletionEligible != got.eligible || p.HasVerifiedStudentNumber != got.number || p.CourseCodeAllowed != got.allowed {
			t.Errorf("%s: Preconditions() = %+v, want the view's %+v", tc.name, p, got)
		}
	}
}

func TestRegistrationListByStudent(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()

	base := storetest.Now()
	student := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Virtanen", Email: "a@example.fi", StudentNumber: "010000011"})
	older := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", ModuleName: "Perusosa", Code: "TKT10002"})
	newer := storetest.AddCourse(t, st, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT10004"})
	submitted := base.Add(-30 * time.Hour)
	sentID := storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: older, State: "awaiting_verification",
		StateChangedAt: base.Add(-10 * 24 * time.Hour), SubmittedAt: &submitted, StudentNumber: "010000011", GradeScaleID: "sis-0-5", GradeID: "5",
		Credits: 4, SubmittedAttainmentID: "hy-att-1"})
	exec(t, st, `UPDATE credit_registrations SET selected_enrolment_id = 'hy-enr-1' WHERE id = $1`, sentID)
	pendingID := storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: newer, StateChangedAt: base.Add(-time.Hour)})

	list, err := st.RegistrationListByStudent(ctx, storetest.Now(), student.ID, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != pendingID || list[1].ID != sentID {
		t.Fatalf("RegistrationListByStudent = %+v, want %s then %s (newest first)", list, pendingID, sentID)
	}
	p, s := list[0], list[1]
	if p.CourseName != "Tietokantojen perusteet" || p.ModuleName != "" || p.Grade == nil || *p.Grade != "4" ||
		p.GradeScaleID != nil || p.Credits == nil || *p.Credits != 5 || !p.Passed || p.StudentNumber == nil || *p.StudentNumber != "010000011" {
		t.Errorf("pending row = %+v; want the completion's grade 4 and the module's 5 credits", p)
	}
	if s.CourseName != "Ohjelmoinnin perusteet" || s.ModuleName != "Perusosa" || s.Grade == nil || *s.Grade != "5" ||
		s.GradeScaleID == nil || *s.GradeScaleID != "sis-0-5" || s.Credits == nil || *s.Credits != 4 || s.UhCourseCode == nil || *s.UhCourseCode != "TKT10002" {
		t.Errorf("sent row = %+v; want the frozen grade 5 on sis-0-5 and 4 credits", s)
	}
	if !s.EnrolmentResolved || !s.Submitted || p.EnrolmentResolved || p.Submitted {
		t.Errorf("progress: sent %v/%v, pending %v/%v; want true/true, false/false", s.EnrolmentResolved, s.Submitted, p.EnrolmentResolved, p.Submitted)
	}
	// The rows feed schedule as they are.
	now := base
	if v := schedule.StudentView(p.ScheduleRow(), p.Preconditions(), now); v.Status != schedule.StudentLookingForEnrolment {
		t.Errorf("pending row's StudentView = %q, want looking for enrolment", v.Status)
	}
	v := schedule.StudentView(s.ScheduleRow(), s.Preconditions(), now)
	if v.Status != schedule.StudentWaitingForSisu || v.WaitsOn != schedule.WaitsOnSisu || v.Next.EscalatesAt == nil || !v.Next.EscalatesAt.Equal(submitted.Add(schedule.VerifyMaxAge)) {
		t.Errorf("sent row's StudentView = %+v", v)
	}
	if list, err := st.RegistrationListByStudent(ctx, storetest.Now(), "nope", store.AllCourses()); err != nil || list != nil {
		t.Errorf("RegistrationListByStudent(nope) = %v, %v; want nothing", list, err)
	}
}

// TestRegistrationListByCourseMirrorsStudentStatus builds a course with a row in every state and
// every precondition combination, and holds the SQL's student-facing status (which orders and
// counts a course's rows) to schedule.StudentStatusOf's.
func TestRegistrationListByCourseMirrorsStudentStatus(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()

	course := storetest.AddCourse(t, st, storetest.Course{Name: "Kurssi", Code: "TKT1"})
	held := course
	held.ModuleID = storetest.NewID()
	exec(t, st, `INSERT INTO course_modules (id, course_id, name, order_number, uh_course_code, ects_credits, enable_credit_registration_via_suotar)
VALUES ($1, $2, 'Held module', 1, 'TKT1-X', 5, true)`, held.ModuleID, course.ID)
	exec(t, st, `INSERT INTO course_module_suotar_configurations (course_module_id, config_checked_at, course_code_allowed, checked_course_code)
VALUES ($1, now(), false, 'TKT1-X')`, held.ModuleID)
	numbered := storetest.AddStudent(t, st, storetest.Student{FirstName: "N", LastName: "Numbered", Email: "n@example.fi", StudentNumber: "010000011"})
	unnumbered := storetest.AddStudent(t, st, storetest.Student{FirstName: "U", LastName: "Unnumbered", Email: "u@example.fi"})

	add := func(state string, student storetest.Student, c storetest.Course, eligible, deleted, resolved, sent bool) string {
		r := storetest.Registration{Student: student, Course: c, State: state}
		if sent {
			r.SubmittedAttainmentID = storetest.NewID()
		}
		id := storetest.AddRegistration(t, st, r)
		if resolved {
			exec(t, st, `UPDATE credit_registrations SET selected_enrolment_id = 'enr' WHERE id = $1`, id)
		}
		if !eligible {
			exec(t, st, `UPDATE course_module_completions SET passed = false WHERE id = (SELECT course_module_completion_id FROM credit_registrations WHERE id = $1)`, id)
		}
		if deleted {
			exec(t, st, `UPDATE course_module_completions SET deleted_at = $2 WHERE id = (SELECT course_module_completion_id FROM credit_registrations WHERE id = $1)`, id, storetest.Now())
		}
		return id
	}
	for _, state := range schedule.States() {
		for _, student := range []storetest.Student{numbered, unnumbered} {
			for _, c := range []storetest.Course{course, held} {
				for _, eligible := range []bool{true, false} {
					for _, deleted := range []bool{false, true} {
						add(string(state), student, c, eligible, deleted, false, false)
					}
				}
			}
		}
		add(string(state), numbered, course, true, false, true, false)
		add(string(state), numbered, course, true, false, true, true)
		add(string(state), numbered, course, true, false, false, true)
	}
	replaced := add("registered", numbered, course, true, false, true, true)
	exec(t, st, `UPDATE credit_registrations SET superseded_by_id = (SELECT id FROM credit_registrations WHERE id <> $1 LIMIT 1), superseded_at = $2 WHERE id = $1`, replaced, storetest.Now())

	list, err := st.RegistrationListByCourse(ctx, storetest.Now(), course.ID, store.CoursesOnly([]string{course.ID}), 10000)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(schedule.States()) * 19; len(list) != want {
		t.Fatalf("RegistrationListByCourse = %d rows, want %d (the superseded one left out)", len(list), want)
	}
	tally := map[schedule.StudentStatus]int64{}
	last := -1
	for _, r := range list {
		if r.ID == replaced {
			t.Errorf("superseded row %s listed", r.ID)
		}
		want := schedule.StudentStatusOf(r.ScheduleRow(), r.Preconditions())
		if r.StudentStatus != want {
			t.Errorf("row in %s with %+v: SQL says %q, schedule says %q", r.State, r.Preconditions(), r.StudentStatus, want)
		}
		tally[want]++
		if i := orderIndex(want); i < last {
			t.Errorf("row %s (%q) listed after a later status", r.ID, want)
		} else {
			last = i
		}
	}
	for _, s := range schedule.StudentStatuses() {
		if tally[s] == 0 {
			t.Errorf("no row has status %q; the test does not cover it", s)
		}
	}
	counts, err := st.RegistrationCountsByStudentStatus(ctx, course.ID, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(counts) != fmt.Sprint(tally) {
		t.Errorf("RegistrationCountsByStudentStatus = %v, want %v", counts, tally)
	}
	first, err := st.RegistrationListByCourse(ctx, storetest.Now(), course.ID, store.AllCourses(), 3)
	if err != nil || len(first) != 3 || first[0].StudentStatus != schedule.StudentNeedsStudentNumber {
		t.Errorf("RegistrationListByCourse limit 3 = %d rows, %v; want 3 starting with students who need a number", len(first), err)
	}
}

// orderIndex is where a course page puts a status: students who can act first.
func orderIndex(s schedule.StudentStatus) int {
	order := []schedule.StudentStatus{
		schedule.StudentNeedsStudentNumber, schedule.StudentNeedsEnrolment, schedule.StudentWaitingForCompletion,
		schedule.StudentHeldForCourseSetup, schedule.StudentFailed, schedule.StudentLookingForEnrolment,
		schedule.StudentSending, schedule.StudentWaitingForSisu, schedule.StudentPartlyRegistered,
		schedule.StudentRegistered, schedule.StudentNotRegistering,
	}
	return slices.Index(order, s)
}

// A pending row's rank in regdesk's copy of the ledger follows its student, completion and module
// configuration, which change outside the ledger row: the sweep re-derives it, and that is no
// change to the row (its updated_at stays, so the queue's order and a person's open page do not
// move). Every other state's rank is StudentRankOfState's, which the demo's bulk writer uses.
func TestStudentRankFollowsStudentStatus(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Kurssi", Code: "TKT2"})
	student := storetest.AddStudent(t, st, storetest.Student{FirstName: "P", LastName: "Pending", Email: "p@example.fi"})
	id := storetest.AddRegistration(t, st, storetest.Registration{Student: student, Course: course, State: "pending"})
	type stamp struct {
		Rank    int16
		Updated time.Time
	}
	read := func(id string) stamp {
		t.Helper()
		var s stamp
		if err := st.Pool().QueryRow(ctx, `SELECT student_rank, updated_at FROM ledger_mirror WHERE id = $1`, id).Scan(&s.Rank, &s.Updated); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := read(id)
	completion := `(SELECT course_module_completion_id FROM credit_registrations WHERE id = '` + id + `')`
	steps := []struct {
		name string
		sql  string
		want schedule.StudentStatus
		args []any
	}{
		{"as added", `SELECT 1`, schedule.StudentNeedsStudentNumber, nil},
		{"number linked", `INSERT INTO verified_student_numbers (user_id, student_number, sisu_person_id, verified_via_email)
VALUES ('` + student.ID + `', '0123456', 'hy-hlo-1', 'p@example.fi')`, schedule.StudentLookingForEnrolment, nil},
		{"code rejected", `INSERT INTO course_module_suotar_configurations (course_module_id, config_checked_at, course_code_allowed, checked_course_code)
VALUES ('` + course.ModuleID + `', now(), false, 'TKT2')`, schedule.StudentHeldForCourseSetup, nil},
		{"code fixed", `UPDATE course_modules SET uh_course_code = 'TKT2-B' WHERE id = '` + course.ModuleID + `'`, schedule.StudentLookingForEnrolment, nil},
		{"completion failed", `UPDATE course_module_completions SET passed = false WHERE id = ` + completion, schedule.StudentWaitingForCompletion, nil},
		{"completion deleted", `UPDATE course_module_completions SET deleted_at = $1 WHERE id = ` + completion, schedule.StudentNotRegistering, []any{storetest.Now()}},
		{"config removed", `UPDATE course_module_suotar_configurations SET deleted_at = now() WHERE course_module_id = '` + course.ModuleID + `'`, schedule.StudentNotRegistering, nil},
	}
	for _, s := range steps {
		storetest.LMSExec(t, st, s.sql, s.args...)
		got := read(id)
		if got.Rank != store.StudentRank(s.want) {
			t.Errorf("%s: student_rank %d, want %d (%s)", s.name, got.Rank, store.StudentRank(s.want), s.want)
		}
		if !got.Updated.Equal(before.Updated) {
			t.Errorf("%s: the refresh moved updated_at %v→%v", s.name, before.Updated, got.Updated)
		}
	}

	for _, state := range schedule.States() {
		for _, resolved := range []bool{false, true} {
			for _, sent := range []bool{false, true} {
				want, ok := store.StudentRankOfState(state, resolved, sent)
				if !ok {
					continue
				}
				r := storetest.Registration{Student: student, Course: course, State: string(state)}
				if sent {
					r.SubmittedAttainmentID = storetest.NewID()
				}
				row := storetest.AddRegistration(t, st, r)
				if resolved {
					storetest.LMSExec(t, st, `UPDATE credit_registrations SET selected_enrolment_id = 'enr' WHERE id = $1`, row)
				}
				if got := read(row).Rank; got != want {
					t.Errorf("%s (enrolment %v, submitted %v): copied rank %d, StudentRankOfState %d", state, resolved, sent, got, want)
				}
			}
		}
	}
	// The row's own write is copied as one.
	storetest.LMSExec(t, st, `UPDATE credit_registrations SET state = 'cancelled' WHERE id = $1`, id)
	if got := read(id); got.Updated.Equal(before.Updated) || got.Rank != store.StudentRank(schedule.StudentNotRegistering) {
		t.Errorf("the row's own write: updated_at %v (was %v), rank %d", got.Updated, before.Updated, got.Rank)
	}
}
