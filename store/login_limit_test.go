package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"regdesk/store"
	"regdesk/store/storetest"
)

var (
	perAddress = store.LoginLimit{Max: 30, Window: 15 * time.Minute}
	perAccount = store.LoginLimit{Max: 10, Window: 15 * time.Minute}
)

func TestLoginAttemptReserveLimitsPerAccountAndAddress(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := context.Background()
	now := storetest.Now()
	attempt := func(at time.Time, addr, email string) store.LoginAttempt {
		return store.LoginAttempt{CreatedAt: at, Address: addr, Email: email}
	}
	fail := func(at time.Time, addr, email string) {
		t.Helper()
		id, until, err := st.LoginAttemptReserve(ctx, attempt(at, addr, email), perAddress, perAccount)
		if err != nil || !until.IsZero() {
			t.Fatalf("reserve at %v: %v, blocked until %v", at, err, until)
		}
		if err := st.LoginAttemptFinish(ctx, id, store.LoginWrongPassword, nil); err != nil {
			t.Fatal(err)
		}
	}

	// Ten failures a minute apart for one account, from ten addresses.
	for i := range 10 {
		fail(now.Add(time.Duration(i)*time.Minute), "192.0.2."+string(rune('0'+i)), "Anna@example.invalid")
	}
	_, until, err := st.LoginAttemptReserve(ctx, attempt(now.Add(10*time.Minute), "198.51.100.1", "anna@EXAMPLE.invalid"), perAddress, perAccount)
	if err != nil || !until.Equal(now.Add(15*time.Minute)) {
		t.Fatalf("the 11th attempt for the account: blocked until %v (%v), want the first failure + 15 min", until, err)
	}
	// The first failure ages out 15 minutes after it: then one more attempt may go.
	id, until, err := st.LoginAttemptReserve(ctx, attempt(now.Add(15*time.Minute), "198.51.100.1", "anna@example.invalid"), perAddress, perAccount)
	if err != nil || !until.IsZero() || id == 0 {
		t.Fatalf("after the first failure aged out: id %d, blocked until %v (%v)", id, until, err)
	}
	// A success clears the account's count, not the address's.
	if err := st.LoginAttemptFinish(ctx, id, store.LoginSuccess, nil); err != nil {
		t.Fatal(err)
	}
	if _, until, _ := st.LoginAttemptReserve(ctx, attempt(now.Add(15*time.Minute+time.Second), "198.51.100.2", "anna@example.invalid"), perAddress, perAccount); !until.IsZero() {
		t.Errorf("after a success the account is still blocked until %v", until)
	}
	if err := st.LoginAttemptFinish(ctx, id, store.LoginSuccess, nil); err == nil {
		t.Errorf("an attempt finished twice")
	}

	// Thirty failures from one address over many accounts block the address.
	for i := range 30 {
		fail(now.Add(time.Duration(i)*time.Second), "203.0.113.7", "guess"+string(rune('a'+i%26))+string(rune('a'+i/26))+"@example.invalid")
	}
	if _, until, _ := st.LoginAttemptReserve(ctx, attempt(now.Add(time.Minute), "203.0.113.7", "new@example.invalid"), perAddress, perAccount); !until.Equal(now.Add(15 * time.Minute)) {
		t.Errorf("the 31st failure from one address: blocked until %v, want %v", until, now.Add(15*time.Minute))
	}
	list, err := st.LoginAttemptList(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	recorded := ""
	for _, a := range list {
		if a.Email == "new@example.invalid" {
			recorded = a.Outcome
		}
	}
	if recorded != store.LoginRateLimited {
		t.Errorf("the refused attempt is recorded as %q, want rate_limited", recorded)
	}
}

// Attempts in flight count: the limit is reserved before the password is checked, so a burst of
// simultaneous wrong passwords, on two instances of regdesk sharing the database, lets exactly the
// limit through.
func TestLoginAttemptReserveHoldsUnderABurstOnTwoInstances(t *testing.T) {
	t.Parallel()
	first, dbURL := storetest.NewWithURL(t, storetest.Options{})
	second, err := store.Open(context.Background(), dbURL, store.Options{MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(second.Close)
	ctx := context.Background()
	now := storetest.Now()

	var wg sync.WaitGroup
	var mu sync.Mutex
	passed, refused := 0, 0
	for i := range 24 {
		st := first
		if i%2 == 1 {
			st = second
		}
		wg.Go(func() {
			id, until, err := st.LoginAttemptReserve(ctx, store.LoginAttempt{CreatedAt: now.Add(time.Duration(i) * time.Millisecond),
				Address: "192.0.2.50", Email: "sami@example.invalid"}, perAddress, perAccount)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if !until.IsZero() {
				refused++
				return
			}
			passed++
			// The password check is still running when the others arrive: finish later.
			_ = id
		})
	}
	wg.Wait()
	if passed != perAccount.Max || refused != 24-perAccount.Max {
		t.Errorf("%d let through and %d refused, want exactly %d through", passed, refused, perAccount.Max)
	}
}
