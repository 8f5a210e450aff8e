package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/store"
	"regdesk/store/storetest"
)

// mirrorBundle is a ledger of n rows, copied, and the LMS's pool that writes it.
type mirrorBundle struct {
	st  *store.Store
	ids []string
}

func setupMirror(t *testing.T, n int) *mirrorBundle {
	t.Helper()
	st := storetest.New(t)
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	b := &mirrorBundle{st: st}
	for i := range n {
		s := storetest.AddStudent(t, st, storetest.Student{FirstName: "Opiskelija", LastName: fmt.Sprint(i), StudentNumber: fmt.Sprintf("0149%05d", i)})
		b.ids = append(b.ids, storetest.AddRegistration(t, st, storetest.Registration{Student: s, Course: course, State: "awaiting_verification"}))
	}
	return b
}

// copied returns the error_message of row id as regdesk's copy holds it, and whether it has the row.
func (b *mirrorBundle) copied(t *testing.T, id string) (string, bool) {
	t.Helper()
	var msg *string
	err := b.st.Pool().QueryRow(context.Background(), `SELECT error_message FROM ledger_mirror WHERE id = $1`, id).Scan(&msg)
	if err == pgx.ErrNoRows {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return store.Deref(msg), true
}

func (b *mirrorBundle) refresh(t *testing.T) store.MirrorRefresh {
	t.Helper()
	r, err := b.st.LedgerMirrorRefresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A write whose transaction began before a refresh and committed after it carries an updated_at
// older than what that refresh copied: the next refresh still copies it.
func TestLedgerMirrorCopiesAWriteCommittedAfterARefresh(t *testing.T) {
	t.Parallel()
	b := setupMirror(t, 2)
	ctx := context.Background()
	lms := storetest.LMS(t, b.st)
	slow, err := lms.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback(ctx)
	if _, err := slow.Exec(ctx, `UPDATE credit_registrations SET error_message = 'slow' WHERE id = $1`, b.ids[0]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the quick write's transaction starts measurably later
	storetest.LMSExecNoSync(t, b.st, `UPDATE credit_registrations SET error_message = 'quick' WHERE id = $1`, b.ids[1])
	if r := b.refresh(t); r.Copied != 1 {
		t.Errorf("the refresh copied %d rows, want the committed one", r.Copied)
	}
	if msg, _ := b.copied(t, b.ids[1]); msg != "quick" {
		t.Fatalf("the committed write is not copied: %q", msg)
	}
	if err := slow.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if r := b.refresh(t); r.Copied != 1 {
		t.Errorf("the next refresh copied %d rows, want the late commit", r.Copied)
	}
	if msg, _ := b.copied(t, b.ids[0]); msg != "slow" {
		t.Errorf("a write committed after a newer one was copied is missing from the copy: %q", msg)
	}
	if r := b.refresh(t); r.Copied != 0 {
		t.Errorf("a refresh with nothing new copied %d rows", r.Copied)
	}
}

// What lies further back than the lookback (a transaction open for longer, a row the LMS deleted
// outright) the sweep catches.
func TestLedgerMirrorSweepCatchesWhatRefreshesCannot(t *testing.T) {
	t.Parallel()
	b := setupMirror(t, 3)
	ctx := context.Background()
	storetest.LMSExecNoSync(t, b.st, `UPDATE credit_registrations SET error_message = 'now' WHERE id = $1`, b.ids[2])
	b.refresh(t)
	err := pgx.BeginFunc(ctx, storetest.LMS(t, b.st), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		// Written as of a transaction that began 10 minutes before the newest copied write.
		if _, err := tx.Exec(ctx, `UPDATE credit_registrations
SET error_message = 'long', updated_at = (SELECT updated_at FROM credit_registrations WHERE id = $2) - $3::interval
WHERE id = $1`, b.ids[0], b.ids[2], store.MirrorLookback+5*time.Minute); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM credit_registrations WHERE id = $1`, b.ids[1])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	b.refresh(t)
	if msg, _ := b.copied(t, b.ids[0]); msg == "long" {
		t.Fatalf("the refresh copied a write older than its lookback; this test no longer tests the sweep")
	}
	r, err := b.st.LedgerMirrorSweep(ctx)
	if err != nil || r.Skipped {
		t.Fatalf("sweep: %+v %v", r, err)
	}
	if msg, _ := b.copied(t, b.ids[0]); msg != "long" {
		t.Errorf("the sweep did not copy the old write: %q", msg)
	}
	if _, ok := b.copied(t, b.ids[1]); ok {
		t.Errorf("the copy keeps a row the LMS deleted")
	}
}

// After a gap (regdesk stopped, the LMS kept writing), refreshes catch up in bounded batches and
// copy every row once.
func TestLedgerMirrorCatchesUpInBatches(t *testing.T) {
	t.Parallel()
	b := setupMirror(t, 25)
	ctx := context.Background()
	for i, id := range b.ids {
		storetest.LMSExecNoSync(t, b.st, `UPDATE credit_registrations SET error_message = $2 WHERE id = $1`, id, fmt.Sprint("gap ", i))
	}
	var copied int64
	var passes []bool
	for range 5 {
		r, err := b.st.LedgerMirrorRefreshBatch(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		copied += r.Copied
		passes = append(passes, r.More)
		if !r.More {
			break
		}
	}
	if copied != 25 || len(passes) != 3 || passes[0] != true || passes[1] != true || passes[2] != false {
		t.Errorf("catching up copied %d rows in passes that said more=%v; want 25 in 10, 10 and 5", copied, passes)
	}
	for i, id := range b.ids {
		if msg, _ := b.copied(t, id); msg != fmt.Sprint("gap ", i) {
			t.Errorf("row %d copied as %q", i, msg)
		}
	}
}

// One refresh or sweep runs at a time across every instance: one that finds another running skips.
func TestLedgerMirrorRunsOnceAcrossInstances(t *testing.T) {
	t.Parallel()
	st, dbURL := storetest.NewWithURL(t, storetest.Options{})
	ctx := context.Background()
	other, err := store.Open(ctx, dbURL, store.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := st.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, store.MirrorLock); err != nil {
		t.Fatal(err)
	}
	if r, err := other.LedgerMirrorRefresh(ctx); err != nil || !r.Skipped {
		t.Errorf("a refresh while another instance refreshes = %+v, %v; want skipped", r, err)
	}
	if r, err := other.LedgerMirrorSweep(ctx); err != nil || !r.Skipped {
		t.Errorf("a sweep while another instance refreshes = %+v, %v; want skipped", r, err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, store.MirrorLock); err != nil {
		t.Fatal(err)
	}
	if r, err := other.LedgerMirrorRefresh(ctx); err != nil || r.Skipped {
		t.Errorf("a refresh with no other running = %+v, %v", r, err)
	}
}
