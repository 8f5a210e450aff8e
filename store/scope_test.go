package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// A scope nobody set reads nothing: the zero Scope finds no registration, student or course, where
// AllCourses finds both courses' rows and CoursesOnly only its own course's. Were the zero value
// read as every course (as a nil []string once was), each "zero" case below would find the rows.
func TestScopeZeroReadsNothing(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	now := storetest.Now()

	mine := storetest.AddCourse(t, st, storetest.Course{Name: "Mine", Code: "TKT1"})
	other := storetest.AddCourse(t, st, storetest.Course{Name: "Other", Code: "TKT2"})
	anna := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Virtanen", Email: "a@example.fi", StudentNumber: "010000011"})
	aino := storetest.AddStudent(t, st, storetest.Student{FirstName: "Aino", LastName: "Virtanen", Email: "b@example.fi", StudentNumber: "010000012"})
	mineRow := storetest.AddRegistration(t, st, storetest.Registration{Student: anna, Course: mine, State: "pending"})
	otherRow := storetest.AddRegistration(t, st, storetest.Registration{Student: aino, Course: other, State: "pending"})

	scopes := []struct {
		name  string
		scope store.Scope
		want  []string // the registrations it reaches
	}{
		{"zero", store.Scope{}, nil},
		{"none", store.CoursesOnly(nil), nil},
		{"all", store.AllCourses(), []string{mineRow, otherRow}},
		{"mine", store.CoursesOnly([]string{mine.ID}), []string{mineRow}},
	}
	for _, c := range scopes {
		t.Run(c.name, func(t *testing.T) {
			reaches := func(id string) bool { return slices.Contains(c.want, id) }

			rows, _, err := st.RegistrationList(ctx, now, store.RegistrationFilter{Scope: c.scope}, nil, 50)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
			slices.Sort(ids)
			want := slices.Sorted(slices.Values(c.want))
			if !slices.Equal(ids, want) {
				t.Errorf("RegistrationList = %v; want %v", ids, want)
			}

			for _, id := range []string{mineRow, otherRow} {
				_, err := st.RegistrationPageGet(ctx, now, id, c.scope)
				if reaches(id) && err != nil {
					t.Errorf("RegistrationPageGet(%s) error = %v; want the page", id, err)
				}
				if !reaches(id) && !errors.Is(err, store.ErrNotFound) {
					t.Errorf("RegistrationPageGet(%s) error = %v; want ErrNotFound", id, err)
				}
			}

			found, err := st.StudentSearch(ctx, "virtanen", c.scope, 20)
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != len(c.want) {
				t.Errorf("StudentSearch = %d students; want %d", len(found), len(c.want))
			}

			counts, err := st.RegistrationCountsGet(ctx, now, c.scope)
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			for _, k := range counts.Phases {
				n += k
			}
			if int(n) != len(c.want) {
				t.Errorf("RegistrationCountsGet phases = %v (%d in all); want %d", counts.Phases, n, len(c.want))
			}

			_, err = st.CoursePageGet(ctx, store.CoursePageParams{ID: other.ID, Scope: c.scope, Limit: 10})
			if reaches(otherRow) && err != nil {
				t.Errorf("CoursePageGet(other) error = %v; want the page", err)
			}
			if !reaches(otherRow) && !errors.Is(err, store.ErrNotFound) {
				t.Errorf("CoursePageGet(other) error = %v; want ErrNotFound", err)
			}
		})
	}
}

// A background bulk apply keeps its scope through bulk_jobs.params: every course stays every
// course, a teacher's courses stay theirs, and no scope stays none.
func TestScopeSurvivesBulkJob(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	now := storetest.Now()
	owner := storetest.AddStaff(t, st, "Sanna Support", "sanna@example.fi", "support")
	course := storetest.NewID()

	for _, scope := range []store.Scope{store.AllCourses(), store.CoursesOnly([]string{course}), {}} {
		p := store.BulkApplyParams{Action: schedule.ActionCancel, Reason: "scope round trip", Scope: scope,
			Actor: store.ActionActor{ID: owner.AccountID, Role: "support"}, JobID: storetest.NewID()}
		if err := st.BulkJobCreate(ctx, p.JobID, p, now); err != nil {
			t.Fatal(err)
		}
		got, ok, err := st.BulkJobClaim(ctx, now)
		if err != nil || !ok {
			t.Fatalf("BulkJobClaim = %v, %v", ok, err)
		}
		if got.JobID != p.JobID || got.Scope.All() != scope.All() || !slices.Equal(got.Scope.Courses(), scope.Courses()) ||
			got.Scope.Has(course) != scope.Has(course) {
			t.Errorf("claimed job %s scope %v; want %v", got.JobID, got.Scope, scope)
		}
	}
}

// Scope's JSON fails closed like its zero value: null and {} are no course, and a string an error;
// a bare array (the form stored while the scope was a []string) is its courses.
func TestScopeJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		all  bool
		want []string
	}{
		{`{"all":true}`, true, nil},
		{`{"courses":["a","b"]}`, false, []string{"a", "b"}},
		{`{"courses":[]}`, false, []string{}},
		{`null`, false, []string{}},
		{`{}`, false, []string{}},
		{`{"all":false,"courses":null}`, false, []string{}},
		{`["a"]`, false, []string{"a"}},
		{`[]`, false, []string{}},
	} {
		var s store.Scope
		if err := json.Unmarshal([]byte(c.in), &s); err != nil {
			t.Errorf("Unmarshal(%s): %v", c.in, err)
			continue
		}
		if s.All() != c.all || len(s.Courses()) != len(c.want) || (len(c.want) > 0 && !slices.Equal(s.Courses(), c.want)) {
			t.Errorf("Unmarshal(%s) = %v; want all=%v, courses %v", c.in, s, c.all, c.want)
		}
		if s.Has("x") && !c.all {
			t.Errorf("Unmarshal(%s) = %v reaches a course it does not name", c.in, s)
		}
	}
	var s store.Scope
	if err := json.Unmarshal([]byte(`"everything"`), &s); err == nil || s.All() {
		t.Errorf(`Unmarshal("everything") = %v, %v; want an error and no course`, s, err)
	}
}
