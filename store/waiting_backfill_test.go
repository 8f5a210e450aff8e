package store_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/migrations"
	"regdesk/store/storetest"
)

// backfill0019 is migration 0019's backfill, word for word from the file: the statements between
// its derived-write switches, the switches included. The test runs the migration's own SQL, so a
// backfill edited in the file (or its rules) is what the test holds to the rules.
func backfill0019(t *testing.T) string {
	t.Helper()
	raw, err := fs.ReadFile(migrations.FS, "0019_needs_person_since.sql")
	if err != nil {
		t.Fatal(err)
	}
	sql := string(raw)
	on, off := "SELECT set_config('regdesk.derived_write', 'on', true);", "SELECT set_config('regdesk.derived_write', 'off', true);"
	i, j := strings.Index(sql, on), strings.Index(sql, off)
	if i < 0 || j < i || !strings.Contains(sql[i:j], "UPDATE credit_registrations") {
		t.Fatal("0019 no longer holds its backfill between the derived-write switches: update this test")
	}
	return sql[i : j+len(off)]
}

// The rows written before 0019, with their histories, get from its backfill the first moment each
// needed a person since it was last settled: a retry keeps the first moment, a person's settling
// hand action (not "check now") starts the count again, a reversal of a registration waits from
// the reversal, and a settled row waits for nothing.
func TestNeedsPersonSinceBackfillReadsHistory(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	t0 := storetest.Now()
	day := 24 * time.Hour
	ev := func(id string, at time.Time, kind, from, to string) {
		t.Helper()
		b.exec(t, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, from_state, to_state)
VALUES (gen_random_uuid(), $2, $1, $3::credit_registration_event_kind, $4::credit_registration_state, $5::credit_registration_state)`,
			id, at, kind, nullable(from), nullable(to))
	}
	hand := func(id string, at time.Time, action, from, to string) {
		t.Helper()
		b.exec(t, `INSERT INTO credit_registration_events (id, created_at, credit_registration_id, kind, from_state, to_state, message, actor_user_id, details)
VALUES (gen_random_uuid(), $2, $1, 'admin_action', $3::credit_registration_state, $4::credit_registration_state, 'Hand action.', $5,
  jsonb_build_object('action', $6::text))`, id, at, from, to, b.anna.ID, action)
	}
	type want struct {
		name string
		id   string
		at   *time.Time
	}
	var cases []want
	at := func(x time.Time) *time.Time { return &x }

	// Uncertain, resubmitted by the pipeline, uncertain again: the first entry is kept. A person's
	// "check now" in between settles nothing.
	sub := t0.Add(-6 * day)
	retried := b.addRow(t, storetest.Registration{State: "submission_uncertain", StateChangedAt: t0.Add(-time.Hour), SubmittedAt: &sub,
		SubmittedAttainmentID: "hy-kur-1", StudentNumber: "012345678"})
	ev(retried, t0.Add(-5*day), "state_changed", "submitting", "submission_uncertain")
	hand(retried, t0.Add(-4*day-time.Hour), "check_now", "submission_uncertain", "submission_uncertain")
	ev(retried, t0.Add(-4*day), "state_changed", "submission_uncertain", "ready_to_submit")
	ev(retried, t0.Add(-4*day+time.Minute), "state_changed", "ready_to_submit", "submitting")
	cases = append(cases, want{"retried, checked in between", retried, at(t0.Add(-5 * day))})

	// Uncertain, resubmitted by a person, uncertain again: counts from the second entry, the first
	// after the person's action.
	resub := b.addRow(t, storetest.Registration{State: "submission_uncertain", StateChangedAt: t0.Add(-2 * day), SubmittedAt: &sub,
		SubmittedAttainmentID: "hy-kur-2", StudentNumber: "012345678"})
	ev(resub, t0.Add(-5*day), "state_changed", "submitting", "submission_uncertain")
	hand(resub, t0.Add(-3*day), "resubmit", "submission_uncertain", "ready_to_submit")
	ev(resub, t0.Add(-3*day+time.Minute), "state_changed", "ready_to_submit", "submitting")
	cases = append(cases, want{"resubmitted by a person", resub, at(t0.Add(-2 * day))})

	// A person cleared a flag without moving the row, which asks again by its state: the wait
	// starts at the action, not at the older entry into the state.
	cleared := b.addRow(t, storetest.Registration{State: "misregistered", StateChangedAt: t0.Add(-4 * day)})
	hand(cleared, t0.Add(-30*time.Hour), "clear_flag", "misregistered", "misregistered")
	cases = append(cases, want{"flag cleared by a person", cleared, at(t0.Add(-30 * time.Hour))})

	// Uncertain long ago, then registered, then reversed by Sisu: waits from the reversal.
	reversed := b.addRow(t, storetest.Registration{State: "misregistered", StateChangedAt: t0.Add(-day)})
	ev(reversed, t0.Add(-9*day), "state_changed", "submitting", "submission_uncertain")
	ev(reversed, t0.Add(-7*day), "state_changed", "submission_uncertain", "registered")
	cases = append(cases, want{"registration reversed", reversed, at(t0.Add(-day))})

	// Waiting on verification with the pipeline's flag up, after an uncertain spell: the uncertain
	// entry was the first moment.
	flagged := b.addRow(t, storetest.Registration{State: "awaiting_verification", StateChangedAt: t0.Add(-2 * time.Hour),
		NeedsAdminAttention: true, SubmittedAt: ptrTime(t0.Add(-4 * day)), SubmittedAttainmentID: "hy-kur-3", StudentNumber: "012345678"})
	ev(flagged, t0.Add(-3*day), "state_changed", "submitting", "submission_uncertain")
	cases = append(cases, want{"flagged after an uncertain spell", flagged, at(t0.Add(-3 * day))})

	// Uncertain once, then registered: settled, nobody is asked.
	settled := b.addRow(t, storetest.Registration{State: "registered", StateChangedAt: t0.Add(-day)})
	ev(settled, t0.Add(-3*day), "state_changed", "submitting", "submission_uncertain")
	cases = append(cases, want{"registered", settled, nil})

	// Before 0019 the column did not exist: every row starts without a stamp. A derived write, so
	// the trigger leaves the NULL as written.
	var versions = map[string]int64{}
	var updated = map[string]time.Time{}
	err := pgx.BeginFunc(ctx, b.st.Pool(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('regdesk.derived_write', 'on', true)`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE credit_registrations SET needs_person_since = NULL`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		r := b.get(t, c.id)
		if r.NeedsPersonSince != nil {
			t.Fatalf("%s: stamp %v left before the backfill", c.name, r.NeedsPersonSince)
		}
		versions[c.id], updated[c.id] = r.Version, r.UpdatedAt
	}

	if err := pgx.BeginFunc(ctx, b.st.Pool(), func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, backfill0019(t))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		r := b.get(t, c.id)
		switch got := r.NeedsPersonSince; {
		case c.at == nil && got != nil:
			t.Errorf("%s: backfilled %v, want no stamp", c.name, got)
		case c.at != nil && (got == nil || !got.Equal(*c.at)):
			t.Errorf("%s: backfilled %v, want %v", c.name, got, c.at)
		}
		// A derived write: open pages and the queue's order are untouched.
		if r.Version != versions[c.id] || !r.UpdatedAt.Equal(updated[c.id]) {
			t.Errorf("%s: version %d updated %v, was %d %v", c.name, r.Version, r.UpdatedAt, versions[c.id], updated[c.id])
		}
	}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
