package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"regdesk/store"
	"regdesk/store/storetest"
)

// regdesk's copy of the students' search columns follows the LMS: a student written by the LMS
// is found once their registration is copied (a refresh), a rename and a student with no
// registration once the sweep has run, and a student the LMS removed is no longer found.
func TestPersonSearchFollowsTheLMS(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10001"})
	refresh := func() {
		t.Helper()
		for {
			res, err := st.LedgerMirrorRefresh(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !res.More {
				return
			}
		}
	}
	refresh() // the copy's watermark, before the LMS writes

	// The LMS writes a student and their registration; regdesk has not looked yet.
	id := storetest.NewID()
	storetest.LMSExecNoSync(t, st, `INSERT INTO users (id) VALUES ($1)`, id)
	storetest.LMSExecNoSync(t, st, `INSERT INTO user_details (user_id, first_name, last_name, email) VALUES ($1, 'Päivi', 'Räsänen', 'paivi@example.fi')`, id)
	if got := searchIDs(t, st, "rasanen", store.AllCourses()); len(got) != 0 {
		t.Fatalf("found %v before the copy knew of the student", got)
	}
	storetest.LMSExecNoSync(t, st, `INSERT INTO course_module_completions (id, course_id, course_module_id, user_id, completion_date, completion_language,
  eligible_for_ects, email, passed, prerequisite_modules_completed, register_credits_via_suotar)
VALUES ($1, $2, $3, $4, now(), 'fi-FI', true, 'paivi@example.fi', true, true, true)`, storetest.NewID(), course.ID, course.ModuleID, id)
	storetest.LMSExecNoSync(t, st, `INSERT INTO credit_registrations (course_module_completion_id, user_id, course_id, course_module_id, course_instance_id)
SELECT c.id, c.user_id, c.course_id, c.course_module_id, $2 FROM course_module_completions c WHERE c.user_id = $1`, id, course.InstanceID)
	refresh()
	if got := searchIDs(t, st, "rasanen", store.AllCourses()); !slices.Equal(got, []string{id}) {
		t.Fatalf("after the refresh copied the registration: found %v, want the student", got)
	}

	// A rename and a student with no registration: the sweep.
	other := storetest.NewID()
	storetest.LMSExecNoSync(t, st, `INSERT INTO users (id) VALUES ($1)`, other)
	storetest.LMSExecNoSync(t, st, `INSERT INTO user_details (user_id, first_name, last_name, email) VALUES ($1, 'Olli', 'Oksanen', 'olli@example.fi')`, other)
	storetest.LMSExecNoSync(t, st, `UPDATE user_details SET last_name = 'Virtanen' WHERE user_id = $1`, id)
	if _, err := st.LedgerMirrorSweep(ctx); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, st, "virtanen", store.AllCourses()); !slices.Equal(got, []string{id}) {
		t.Errorf("after the sweep, the renamed student: found %v", got)
	}
	if got := searchIDs(t, st, "rasanen", store.AllCourses()); len(got) != 0 {
		t.Errorf("after the sweep, the old name still finds %v", got)
	}
	if got := searchIDs(t, st, "oksanen", store.AllCourses()); !slices.Equal(got, []string{other}) {
		t.Errorf("after the sweep, the student with no registration: found %v", got)
	}

	// The LMS deletes the user: the sweep hides them from the search.
	storetest.LMSExecNoSync(t, st, `UPDATE users SET deleted_at = now() WHERE id = $1`, id)
	if _, err := st.LedgerMirrorSweep(ctx); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, st, "virtanen", store.AllCourses()); len(got) != 0 {
		t.Errorf("after the sweep, the deleted user is still found: %v", got)
	}

	// The LMS removes a student's details: the sweep removes the copy.
	storetest.LMSExecNoSync(t, st, `DELETE FROM user_details WHERE user_id = $1`, other)
	if _, err := st.LedgerMirrorSweep(ctx); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM person_search WHERE user_id = $1`, other).Scan(&left); err != nil || left != 0 {
		t.Errorf("the removed student's copy: %d rows (%v), want none", left, err)
	}
}

// TestSearchFoldAgreesWithSQL: the search folds the typed text in Go and the stored text with
// search_fold (migration 0011); a letter the two fold differently would make a name unfindable.
// Every letter of every group, in both cases, and a few that fold to themselves.
func TestSearchFoldAgreesWithSQL(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	var letters []string
	for _, g := range store.FoldGroups {
		for _, r := range g {
			letters = append(letters, string(r), strings.ToUpper(string(r)))
		}
	}
	letters = append(letters, "Äijälä Öhman", "ß", "x", "1_%", "Łukasz Żółć")
	for _, s := range letters {
		var got string
		if err := st.Pool().QueryRow(context.Background(), `SELECT search_fold($1)`, s).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := store.SearchFold(s); got != want {
			t.Errorf("search_fold(%q) = %q, Go folds it to %q", s, got, want)
		}
	}
}
