package demo_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store/demo"
	"regdesk/store/storetest"
)

// TestOtherSeedsAndInstants checks the rules of TestDefaultDemo for other seeds, sizes and
// instants (one with a sub-second part), with and without PostgreSQL checking foreign keys, so
// that no scenario only works by luck of seed 1.
func TestOtherSeedsAndInstants(t *testing.T) {
	t.Parallel()
	for i := range 3 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			st := storetest.New(t)
			n := now.Add(time.Duration(i) * 37 * time.Hour).Add(time.Duration(i) * 1234567 * time.Microsecond)
			if _, err := demo.Write(context.Background(), st, demo.Config{LMS: storetest.LMS(t, st), Rows: 2000 + i*500, Seed: int64(100 + i), Now: n, SkipForeignKeyChecks: i%2 == 0}); err != nil {
				t.Fatal(err)
			}
			rows := readRows(t, st)
			phases := map[schedule.Phase]int{}
			reasons := map[schedule.Reason]int{}
			standings := map[schedule.Standing]int{}
			for _, r := range rows {
				for _, p := range checkRowAt(r, n) {
					t.Errorf("row %s (%s): %s", r.id, r.sched.State, p)
				}
				s := schedule.Classify(r.sched, n)
				phases[s.Phase]++
				for _, x := range s.Reasons.List() {
					reasons[x]++
				}
				standings[s.Standing]++
			}
			for _, p := range schedule.Phases() {
				if phases[p] == 0 {
					t.Errorf("no phase %s", p)
				}
			}
			checkReasonsAndStandings(t, reasons, standings)
			checkReferences(t, st)
		})
	}
}
