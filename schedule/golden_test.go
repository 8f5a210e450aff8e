package schedule_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"regdesk/schedule"
)

var update = flag.Bool("update", false, "update golden files")

// TestVerifyScheduleGolden replays the verify polls of one submission, with
// seeded jitter, so a change anywhere in the schedule shows as a readable
// diff of testdata/verify_schedule.golden. Past VerifyMaxAge it polls every
// VerifyGiveUpPoll, as the pipeline does. Each poll also shows where the
// awaiting_verification row stands on the LMS's Needs attention tab then:
// running late once it has waited StuckThreshold, needing a person once
// verification gives up.
func TestVerifyScheduleGolden(t *testing.T) {
	t.Parallel()

	submitted := t0.Add(250 * time.Millisecond)
	rng := rand.New(rand.NewPCG(331, 2026))
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# verify polls of a row submitted at %s (jitter seed 331/2026)\n", submitted.Format(time.RFC3339Nano))
	fmt.Fprintf(&buf, "# poll  age at poll       phase              wait chosen  standing: reasons\n")
	row := schedule.Row{State: schedule.StateAwaitingVerification, SubmittedAt: &submitted,
		StateEnteredAt: submitted, StateChangedAt: submitted, NextAttemptAt: submitted}
	now := submitted
	next := schedule.NextAttemptAtRand(now, schedule.VerifyDelay(&submitted, now), rng)
	for poll := 1; next.Sub(submitted) < 16*day; poll++ {
		now = next
		wait := schedule.VerifyDelay(&submitted, now)
		if schedule.VerifyWindowExpired(&submitted, now) {
			wait = schedule.VerifyGiveUpPoll
		}
		st := schedule.Classify(row, now)
		if st.Phase != schedule.VerificationPhaseAt(&submitted, now) {
			t.Fatalf("poll %d: Classify's phase %q differs from VerificationPhaseAt's", poll, st.Phase)
		}
		standing := "-"
		if st.Standing != "" {
			standing = fmt.Sprintf("%s: %v", st.Standing, st.Reasons)
		}
		fmt.Fprintf(&buf, "%6d  %-16s  %-17s  %-11s  %s\n", poll, now.Sub(submitted), st.Phase, wait, standing)
		next = schedule.NextAttemptAtRand(now, wait, rng)
	}

	path := filepath.Join("testdata", "verify_schedule.golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("verify schedule differs from %s; run go test -update and review the diff\ngot:\n%s", path, buf.Bytes())
	}
}
