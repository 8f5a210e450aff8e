package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/demo"
	"regdesk/store/storetest"
)

// planLedgerRows is large enough that PostgreSQL's statistics make a sequential scan of the ledger
// the expensive choice it is at a million rows, and small enough to write in a few seconds.
const planLedgerRows = 40_000

// The plan of every queue filter, the counts and the course page, on a demo ledger with real
// statistics (no enable_seqscan games): none may read the ledger sequentially. A regression here
// (a cast that hides an index, a coalesce around a condition, a predicate no partial index
// implies) costs hundreds of milliseconds at a million rows.
func TestQueuePlansUseIndexes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes a 40,000-row ledger")
	}
	rec := &storetest.StatementRecorder{}
	st, _ := storetest.NewWithURL(t, storetest.Options{Tracer: rec})
	ctx := context.Background()
	now := storetest.BenchNow
	if _, err := demo.Write(ctx, st, demo.Config{Rows: planLedgerRows, Seed: 3, Now: now, SkipForeignKeyChecks: true}); err != nil {
		t.Fatal(err)
	}
	if err := st.ExecForTest(ctx, `VACUUM ANALYZE`); err != nil {
		t.Fatal(err)
	}
	targets := storetest.FindBenchTargets(t, st)
	rec.Take()

	type check struct {
		name string
		run  func() error
	}
	list := func(f store.RegistrationFilter) func() error {
		return func() error { _, _, err := st.RegistrationList(ctx, now, f, nil, 50); return err }
	}
	checks := []check{
		{"needs admin", list(store.RegistrationFilter{NeedsAdmin: true})},
		{"all", list(store.RegistrationFilter{})},
		{"counts", func() error { _, err := st.RegistrationCountsGet(ctx, now, nil); return err }},
		{"capped count", func() error {
			_, err := st.RegistrationCountCapped(ctx, now, store.RegistrationFilter{States: []schedule.State{schedule.StateSubmissionUncertain}}, 1000)
			return err
		}},
		{"course page", func() error {
			_, err := st.CoursePageGet(ctx, store.CoursePageParams{ID: targets.LargestCourseID, Limit: 500})
			return err
		}},
	}
	for _, p := range schedule.Phases() {
		checks = append(checks, check{"phase " + string(p), list(store.RegistrationFilter{Phases: []schedule.Phase{p}})})
	}
	for _, r := range schedule.Reasons() {
		checks = append(checks, check{"reason " + string(r), list(store.RegistrationFilter{Reasons: []schedule.Reason{r}})})
	}
	for _, s := range schedule.States() {
		if s == schedule.StateRegistered {
			continue // nine rows in ten: walking the newest first and filtering is the right plan
		}
		checks = append(checks, check{"state " + string(s), list(store.RegistrationFilter{States: []schedule.State{s}})})
	}
	for _, e := range schedule.ErrorCodes() {
		checks = append(checks, check{"error " + string(e), list(store.RegistrationFilter{ErrorCodes: []schedule.ErrorCode{e}})})
	}
	for _, c := range checks {
		if err := c.run(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, s := range rec.Take() {
			if !strings.Contains(s.SQL, "credit_registrations") {
				continue
			}
			var plan []struct {
				Plan json.RawMessage `json:"Plan"`
			}
			var raw []byte
			if err := st.Pool().QueryRow(ctx, `EXPLAIN (FORMAT JSON) `+s.SQL, s.Args...).Scan(&raw); err != nil {
				t.Fatalf("%s: explain: %v\n%s", c.name, err, s.SQL)
			}
			rec.Take()
			if err := json.Unmarshal(raw, &plan); err != nil {
				t.Fatal(err)
			}
			if rel := seqScanned(plan[0].Plan); rel != "" {
				t.Errorf("%s: a sequential scan of %s:\n%s", c.name, rel, raw)
			}
		}
	}
}

// seqScanned returns the ledger table a plan reads sequentially, or "".
func seqScanned(node json.RawMessage) string {
	var n struct {
		NodeType string            `json:"Node Type"`
		Relation string            `json:"Relation Name"`
		Plans    []json.RawMessage `json:"Plans"`
	}
	if err := json.Unmarshal(node, &n); err != nil {
		return ""
	}
	// The students (17,000 here) may be hashed whole: at 40,000 rows that is the cheaper plan, and
	// the planner does not choose it at a million. The ledger and the completions it never may.
	if n.NodeType == "Seq Scan" && (n.Relation == "credit_registrations" || n.Relation == "course_module_completions") {
		return n.Relation
	}
	for _, p := range n.Plans {
		if rel := seqScanned(p); rel != "" {
			return rel
		}
	}
	return ""
}
