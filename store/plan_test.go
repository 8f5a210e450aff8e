package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
	if _, err := demo.Write(ctx, st, demo.Config{LMS: storetest.LMS(t, st), Rows: planLedgerRows, Seed: 3, Now: now, SkipForeignKeyChecks: true}); err != nil {
		t.Fatal(err)
	}
	if err := st.ExecForTest(ctx, `VACUUM ANALYZE`); err != nil {
		t.Fatal(err)
	}
	targets := storetest.FindBenchTargets(t, st)
	// The planner knows how often a state and the pipeline's flag go together (migration 0028):
	// taken for independent, the flagged failed_permanent rows were guessed at a two-hundredth of
	// what they are, and at ten million rows permanent_error's capped count then sorted all of them.
	var actual int
	var estimate []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	const flaggedPermanent = `FROM ledger_mirror WHERE state = 'failed_permanent' AND needs_admin_attention`
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) `+flaggedPermanent).Scan(&actual); err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `EXPLAIN (FORMAT JSON) SELECT 1 `+flaggedPermanent).Scan(&estimate); err != nil {
		t.Fatal(err)
	}
	if actual < 20 {
		t.Fatalf("the plan ledger has %d flagged failed_permanent rows: too few to check the estimate", actual)
	}
	if got := estimate[0].Plan.Rows; got < float64(actual)/4 || got > float64(actual)*4 {
		t.Errorf("the planner guesses %.0f flagged failed_permanent rows where there are %d", got, actual)
	}
	rec.Take()

	type check struct {
		name string
		run  func() error
		// avoid names an index the plan must not use; indexOnly asks every read of the ledger to
		// be an index-only scan.
		avoid     string
		indexOnly bool
		// planEach asks the list to be sent unnamed, planned for its values every time.
		planEach bool
		// list marks a queue list (RegistrationList).
		list bool
		// rangeOf names an index the plan must read a range of (an index condition), not walk whole.
		rangeOf string
		// uses names an index the list's plan must read.
		uses string
		// stopsAtCap asks a capped count to sort nothing below its LIMIT.
		stopsAtCap bool
	}
	list := func(f store.RegistrationFilter) func() error {
		return func() error { _, _, err := st.RegistrationList(ctx, now, f, nil, 50); return err }
	}
	checks := []check{
		{name: "needs admin", run: list(store.RegistrationFilter{Scope: store.AllCourses(), NeedsAdmin: true}), list: true},
		{name: "all", run: list(store.RegistrationFilter{Scope: store.AllCourses()}), list: true},
		// Every count reads only an index: with a heap fetch per row, the reasons' counts took 20 to
		// 40 ms apiece at a million rows (migration 0018's covering index).
		{name: "counts", run: func() error { _, err := st.RegistrationCountsGet(ctx, now, store.AllCourses()); return err }, indexOnly: true},
		// Within a teacher's courses, every count reads only an index too: a course's registered
		// rows were read sequentially before migration 0018's course-and-state index, and the
		// verification windows and superseded rows went to the heap for each row's course before
		// 0025 (41 ms for the largest course's phases at a million rows).
		{name: "counts, a teacher's", run: func() error {
			_, err := st.RegistrationCountsGet(ctx, now, store.CoursesOnly([]string{targets.LargestCourseID}))
			return err
		}, indexOnly: true},
		{name: "capped count", run: func() error {
			_, err := st.RegistrationCountCapped(ctx, now, store.RegistrationFilter{Scope: store.AllCourses(), States: []schedule.State{schedule.StateSubmissionUncertain}}, 1000)
			return err
		}},
		// The dense window's capped count (the bulk bar's) reads one range of migration 0024's
		// index and nothing else: as an OR it walked the submitted_at index from its oldest entry,
		// 70,000 rows before the window at ten million.
		{name: "capped count, dense window", run: func() error {
			_, err := st.RegistrationCountCapped(ctx, now, store.RegistrationFilter{Scope: store.AllCourses(), Phases: []schedule.Phase{schedule.PhaseDenseWindow}}, 501)
			return err
		}, rangeOf: "idx_ledger_mirror_verification_due"},
		{name: "course page", run: func() error {
			_, err := st.CoursePageGet(ctx, store.CoursePageParams{Scope: store.AllCourses(), ID: targets.LargestCourseID, Limit: 500, Now: storetest.Now()})
			return err
		}},
	}
	for _, p := range schedule.Phases() {
		c := check{name: "phase " + string(p), run: list(store.RegistrationFilter{Scope: store.AllCourses(), Phases: []schedule.Phase{p}}), list: true}
		switch p {
		case schedule.PhaseWaiting, schedule.PhaseDenseWindow, schedule.PhaseLateWindow, schedule.PhaseBackingOff, schedule.PhasePastGiveUpAge:
			// A verification window is read from the verification rows, never by walking the whole
			// live ledger newest first: /?phase=waiting did, through 992,500 rows, when the window
			// was empty.
			c.avoid = "idx_ledger_mirror_live_activity"
			// And it is planned for its instants every time: the generic plan of a cached statement
			// guesses 70 rows for any window and joined and sorted 14,000 for backing_off.
			c.planEach = true
		}
		checks = append(checks, c)
	}
	for _, r := range schedule.Reasons() {
		// Every reason's capped count (the bulk bar's) stops at its cap: a sort below the LIMIT
		// reads every matching row first. permanent_error's generic plan did at ten million rows,
		// merge-joining the rows it guessed were six with the dismissals (140 ms), which this
		// ledger is too small to show; the estimate check above is what holds migration 0028.
		checks = append(checks, check{name: "capped count, reason " + string(r), run: func() error {
			_, err := st.RegistrationCountCapped(ctx, now, store.RegistrationFilter{Scope: store.AllCourses(), Reasons: []schedule.Reason{r}}, 1001)
			return err
		}, stopsAtCap: true})
		c := check{name: "reason " + string(r), run: list(store.RegistrationFilter{Scope: store.AllCourses(), Reasons: []schedule.Reason{r}}), list: true}
		if r == schedule.ReasonPermanentError {
			// The planner guesses one such row whatever the ledger holds; read through the attention
			// candidates' index, every one of them was sorted for the page (200 ms at ten million).
			c.uses = "idx_ledger_mirror_permanent_error_activity"
		}
		if r == schedule.ReasonFlaggedByPipeline {
			// Through the flagged rows' index, every one of them (5,700 at a million) was fetched
			// from the heap to keep the 950 no column-decided reason explains (30 ms); migration
			// 0010's index holds only those (store.sqlFlagCandidate).
			c.uses = "idx_ledger_mirror_flag_candidates"
		}
		if r == schedule.ReasonStuckInState {
			// A cached statement now (selfIndexedReasons): the generic plan as well as the custom one
			// must read the four states' index, which at a million rows it walks newest first.
			c.uses = "idx_ledger_mirror_late_activity"
		}
		checks = append(checks, c)
	}
	for _, s := range schedule.Standings() {
		c := check{name: "standing " + string(s), run: list(store.RegistrationFilter{Scope: store.AllCourses(), Standings: []schedule.Standing{s}}), list: true}
		if s == schedule.StandingRunningLate {
			c.uses = "idx_ledger_mirror_late_activity" // as stuck_in_state's list
		}
		checks = append(checks, c)
	}
	for _, s := range schedule.States() {
		if s == schedule.StateRegistered {
			continue // nine rows in ten: walking the newest first and filtering is the right plan
		}
		checks = append(checks, check{name: "state " + string(s), run: list(store.RegistrationFilter{Scope: store.AllCourses(), States: []schedule.State{s}}), list: true})
	}
	for _, e := range schedule.ErrorCodes() {
		checks = append(checks, check{name: "error " + string(e), run: list(store.RegistrationFilter{Scope: store.AllCourses(), ErrorCodes: []schedule.ErrorCode{e}}), list: true})
	}
	conn, err := st.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, c := range checks {
		if err := c.run(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i, s := range rec.Take() {
			// The lists and counts read regdesk's copy of the ledger (ledger_mirror); the sessions'
			// and accounts' statements around them are not what this test holds.
			if !strings.Contains(s.SQL, "ledger_mirror") {
				continue
			}
			if c.planEach && strings.Contains(s.SQL, "ORDER BY") && (len(s.Args) == 0 || s.Args[0] != pgx.QueryExecModeDescribeExec) {
				t.Errorf("%s: the list is sent as a cached prepared statement, which may switch to a generic plan", c.name)
			}
			// The plan made for these values, and the generic plan PostgreSQL may switch a cached
			// statement to after five executions (made without the values: EXPLAIN EXECUTE of a
			// prepared statement under force_generic_plan).
			explain := func(mode string) {
				name := fmt.Sprintf("plan_%d", i)
				// EXECUTE's arguments as literals: PostgreSQL does not describe a utility statement's
				// parameters.
				placeholders := make([]string, 0, len(s.Args))
				for _, a := range s.Args {
					if _, ok := a.(pgx.QueryExecMode); ok {
						continue // how pgx sends it (whereBuilder.queryArgs), not an argument
					}
					placeholders = append(placeholders, sqlLiteral(t, a))
				}
				execute := `EXECUTE ` + name
				if len(s.Args) > 0 {
					execute += `(` + strings.Join(placeholders, ", ") + `)`
				}
				var raw []byte
				err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					if _, err := tx.Exec(ctx, `SET LOCAL plan_cache_mode = `+mode); err != nil {
						return err
					}
					// The simple protocol, so the statement's own $n are the prepared statement's.
					if _, err := tx.Conn().PgConn().Exec(ctx, `PREPARE `+name+` AS `+s.SQL).ReadAll(); err != nil {
						return err
					}
					if err := tx.QueryRow(ctx, `EXPLAIN (FORMAT JSON) `+execute).Scan(&raw); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, `DEALLOCATE `+name)
					return err
				})
				rec.Take()
				if err != nil {
					t.Fatalf("%s: explain (%s): %v\n%s", c.name, mode, err, s.SQL)
				}
				var plan []struct {
					Plan json.RawMessage `json:"Plan"`
				}
				if err := json.Unmarshal(raw, &plan); err != nil {
					t.Fatal(err)
				}
				if rel := seqScanned(plan[0].Plan); rel != "" {
					t.Errorf("%s (%s): a sequential scan of %s:\n%s", c.name, mode, rel, raw)
				}
				// A list picks its page from the ledger, then joins the page's students, courses and
				// modules: joined under the LIMIT, /?reason=running_late (now stuck_in_state) looked up 40,000 of them
				// to keep 51 at a million rows.
				if c.list && strings.Contains(s.SQL, "ORDER BY") {
					if rel := joinedBeforeLimit(plan[0].Plan); rel != "" {
						t.Errorf("%s (%s): %s is joined before the page's LIMIT:\n%s", c.name, mode, rel, raw)
					}
				}
				if c.avoid != "" && strings.Contains(string(raw), `"`+c.avoid+`"`) {
					t.Errorf("%s (%s): the plan uses %s:\n%s", c.name, mode, c.avoid, raw)
				}
				if c.uses != "" && strings.Contains(s.SQL, "ORDER BY") && !strings.Contains(string(raw), `"`+c.uses+`"`) {
					t.Errorf("%s (%s): the plan does not read %s:\n%s", c.name, mode, c.uses, raw)
				}
				if c.stopsAtCap && strings.HasPrefix(s.SQL, "SELECT count(*)") {
					if node := sortedBeforeLimit(plan[0].Plan); node != "" {
						t.Errorf("%s (%s): %s below the cap's LIMIT reads every matching row:\n%s", c.name, mode, node, raw)
					}
				}
				if c.rangeOf != "" && strings.HasPrefix(s.SQL, "SELECT count(*)") && !readsRange(plan[0].Plan, c.rangeOf) {
					t.Errorf("%s (%s): no range of %s is read:\n%s", c.name, mode, c.rangeOf, raw)
				}
				if c.indexOnly && strings.HasPrefix(s.SQL, "SELECT (SELECT count(*)") {
					if node := heapRead(plan[0].Plan); node != "" {
						t.Errorf("%s (%s): %s reads the ledger's rows, not only an index:\n%s", c.name, mode, node, raw)
					}
				}
			}
			explain("force_custom_plan")
			// A statement sent unnamed (whereBuilder.queryArgs) is planned for its values every
			// time: it never has a generic plan.
			if len(s.Args) == 0 || s.Args[0] != pgx.QueryExecModeDescribeExec {
				explain("force_generic_plan")
			}
		}
	}
}

// planNode is what the plan checks read of an EXPLAIN (FORMAT JSON) node.
type planNode struct {
	NodeType string            `json:"Node Type"`
	Relation string            `json:"Relation Name"`
	Index    string            `json:"Index Name"`
	Cond     string            `json:"Index Cond"`
	Plans    []json.RawMessage `json:"Plans"`
	// Parent is how the node serves its parent: "InitPlan" for one that runs once, whatever the
	// rows around it.
	Parent string `json:"Parent Relationship"`
	// underLimit is set on every node below a Limit but outside an init plan (not read from the
	// JSON): an init plan (the blocking problems' modules, stopped phases) runs once per statement.
	underLimit bool
}

// findInPlan walks a plan depth first and returns what found says of the first node it says
// anything of, or "".
func findInPlan(plan json.RawMessage, found func(planNode) string) string {
	return findBelow(plan, false, found)
}

func findBelow(node json.RawMessage, underLimit bool, found func(planNode) string) string {
	var n planNode
	if err := json.Unmarshal(node, &n); err != nil {
		return ""
	}
	n.underLimit = (underLimit && n.Parent != "InitPlan") || n.NodeType == "Limit"
	if s := found(n); s != "" {
		return s
	}
	for _, p := range n.Plans {
		if s := findBelow(p, n.underLimit, found); s != "" {
			return s
		}
	}
	return ""
}

// seqScanned returns the ledger table a plan reads sequentially, or "".
func seqScanned(plan json.RawMessage) string {
	return findInPlan(plan, func(n planNode) string {
		// The students (17,000 here) may be hashed whole: at 40,000 rows that is the cheaper plan,
		// and the planner does not choose it at a million. The ledger and the completions it never may.
		if n.NodeType == "Seq Scan" && (n.Relation == "ledger_mirror" || n.Relation == "credit_registrations" || n.Relation == "course_module_completions") {
			return n.Relation
		}
		return ""
	})
}

// joinedBeforeLimit returns the students, courses or modules table a plan reads below a Limit
// node, or "".
func joinedBeforeLimit(plan json.RawMessage) string {
	return findInPlan(plan, func(n planNode) string {
		if n.underLimit && (n.Relation == "users" || n.Relation == "user_details" || n.Relation == "verified_student_numbers" ||
			n.Relation == "courses" || n.Relation == "course_modules") {
			return n.Relation
		}
		return ""
	})
}

// readsRange reports whether a plan scans index with an index condition.
func readsRange(plan json.RawMessage, index string) bool {
	return findInPlan(plan, func(n planNode) string {
		if n.Index == index && n.Cond != "" {
			return n.Cond
		}
		return ""
	}) != ""
}

// heapRead returns the first node of a plan that reads the ledger copy's rows (an index scan
// or a bitmap heap scan), or "".
func heapRead(plan json.RawMessage) string {
	return findInPlan(plan, func(n planNode) string {
		if n.Relation == "ledger_mirror" && n.NodeType != "Index Only Scan" {
			return n.NodeType + " " + n.Index
		}
		return ""
	})
}

// sqlLiteral writes a recorded argument as an untyped SQL literal, which EXECUTE casts to the
// prepared statement's parameter type.
func sqlLiteral(t *testing.T, a any) string {
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	switch v := a.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return quote(v.Format(time.RFC3339Nano))
	case string:
		return quote(v)
	case []string:
		if v == nil {
			return "NULL"
		}
		return quote("{" + strings.Join(v, ",") + "}")
	case []int16:
		parts := make([]string, len(v))
		for i, n := range v {
			parts[i] = fmt.Sprint(n)
		}
		return quote("{" + strings.Join(parts, ",") + "}")
	case int, int16, int32, int64, bool:
		return quote(fmt.Sprint(v))
	}
	t.Fatalf("no literal for %T", a)
	return ""
}

// sortedBeforeLimit returns "a sort" when a plan sorts below a Limit node, or "".
func sortedBeforeLimit(plan json.RawMessage) string {
	return findInPlan(plan, func(n planNode) string {
		if n.underLimit && (n.NodeType == "Sort" || n.NodeType == "Incremental Sort") {
			return "a sort"
		}
		return ""
	})
}
