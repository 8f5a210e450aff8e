package store_test

import (
	"context"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

var benchNow = storetest.BenchNow

func benchLedger(b *testing.B) *store.Store {
	b.Helper()
	st, _ := storetest.DemoLedger(b, storetest.BenchRows(b))
	return st
}

// BenchmarkQueue measures what the triage queue asks of a large ledger on every page view and
// count refresh.
func BenchmarkQueue(b *testing.B) {
	st := benchLedger(b)
	ctx := context.Background()
	first, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses()}, nil, 50)
	if err != nil || len(first) == 0 {
		b.Fatalf("first page: %v", err)
	}
	deep := &store.RegistrationCursor{UpdatedAt: benchNow.Add(-200 * 24 * time.Hour), ID: first[0].ID}
	cases := []struct {
		name string
		run  func() error
	}{
		{"Counts", func() error { _, err := st.RegistrationCountsGet(ctx, benchNow, store.AllCourses()); return err }},
		{"NeedsAdminPage", func() error {
			_, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses(), NeedsAdmin: true}, nil, 50)
			return err
		}},
		{"AllFirstPage", func() error {
			_, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses()}, nil, 50)
			return err
		}},
		{"AllDeepKeysetPage", func() error {
			_, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses()}, deep, 50)
			return err
		}},
		{"PhaseDenseWindow", func() error {
			_, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses(), Phases: []schedule.Phase{schedule.PhaseDenseWindow}}, nil, 50)
			return err
		}},
		{"PhaseSettled", func() error {
			_, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses(), Phases: []schedule.Phase{schedule.PhaseSettled}}, nil, 50)
			return err
		}},
		{"ReasonPartlyRegisteredOverdue", func() error {
			_, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses(), Reasons: []schedule.Reason{schedule.ReasonPartlyRegisteredOverdue}}, nil, 50)
			return err
		}},
		{"StateFailedPermanent", func() error {
			_, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses(), States: []schedule.State{schedule.StateFailedPermanent}}, nil, 50)
			return err
		}},
		{"SearchName", func() error {
			_, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses(), Search: "virtanen"}, nil, 50)
			return err
		}},
		{"SearchNameNeedsAdmin", func() error {
			_, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses(), NeedsAdmin: true, Search: "virtanen"}, nil, 50)
			return err
		}},
		{"SearchStudentNumber", func() error {
			_, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses(), Search: store.Deref(first[0].StudentNumber)}, nil, 50)
			return err
		}},
		{"RegistrationGet", func() error {
			_, err := st.RegistrationGet(ctx, storetest.Now(), first[0].ID, store.AllCourses())
			return err
		}},
		{"StudentSearch", func() error { _, err := st.StudentSearch(ctx, "korhonen", store.AllCourses(), 8); return err }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPages measures the one read each page makes: a registration's (one statement), a
// student's and a course's (one read-only transaction each), for the newest row's registration,
// student and course.
func BenchmarkPages(b *testing.B) {
	st := benchLedger(b)
	ctx := context.Background()
	first, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses()}, nil, 50)
	if err != nil || len(first) == 0 {
		b.Fatalf("first page: %v", err)
	}
	row := first[0]
	cases := []struct {
		name string
		run  func() error
	}{
		{"Registration", func() error { _, err := st.RegistrationPageGet(ctx, benchNow, row.ID, store.AllCourses()); return err }},
		{"Student", func() error {
			_, err := st.StudentPageGet(ctx, benchNow, row.StudentID, store.AllCourses(), nil)
			return err
		}},
		{"Course", func() error {
			_, err := st.CoursePageGet(ctx, store.CoursePageParams{Scope: store.AllCourses(), ID: row.CourseID, Limit: 500, Now: benchNow})
			return err
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHealthFacts measures one evaluation's counting: every health rule's facts at once, as
// the alerts' evaluator reads them every ALERT_INTERVAL.
func BenchmarkHealthFacts(b *testing.B) {
	st := benchLedger(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := st.HealthFactsGet(ctx, benchNow); err != nil {
			b.Fatal(err)
		}
	}
}
