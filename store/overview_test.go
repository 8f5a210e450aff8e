package store_test

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/store/storetest"
)

// Two instances taking the day's snapshot at once write it once, with the queue's numbers; the
// demo's backfill fills the days before and leaves a counted day alone.
func TestAttentionSnapshotOncePerDay(t *testing.T) {
	t.Parallel()
	st := storetest.New(t)
	ctx := t.Context()
	now := storetest.Now()
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	anna := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Äijälä", Email: "anna@example.invalid", StudentNumber: "014979622"})
	storetest.AddRegistration(t, st, storetest.Registration{Student: anna, Course: course, State: "failed_permanent",
		ErrorCode: "course_not_allowed", NeedsAdminAttention: true, StateChangedAt: now.Add(-3 * 24 * time.Hour)})
	storetest.AddRegistration(t, st, storetest.Registration{Student: anna, Course: course, State: "submission_uncertain",
		SubmittedAt: new(now.Add(-30 * time.Hour)), StateChangedAt: now.Add(-30 * time.Hour)})

	var wg sync.WaitGroup
	wrote := make([]bool, 4)
	for i := range wrote {
		wg.Go(func() {
			w, err := st.AttentionSnapshotTake(ctx, now)
			if err != nil {
				t.Error(err)
			}
			wrote[i] = w
		})
	}
	wg.Wait()
	n := 0
	for _, w := range wrote {
		if w {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d of 4 concurrent takes wrote the day's snapshot, want 1", n)
	}
	counts, err := st.RegistrationCountsGet(ctx, now, store.AllCourses())
	if err != nil {
		t.Fatal(err)
	}
	back, err := st.AttentionSnapshotBackfill(ctx, now, 5)
	if err != nil || back != 5 {
		t.Fatalf("backfill wrote %d days (%v), want 5", back, err)
	}
	today := schedule.HelsinkiDate(now)
	list, err := st.AttentionSnapshotList(ctx, today.AddDays(-10))
	if err != nil || len(list) != 6 {
		t.Fatalf("snapshots = %d (%v), want 6", len(list), err)
	}
	last := list[5]
	if last.Day != today || last.Backfilled || last.NeedsAdmin != counts.NeedsAdmin || last.NeedsAdmin != 2 ||
		last.Reasons[schedule.ReasonPermanentError] != 1 || last.Reasons[schedule.ReasonOutcomeUncertain] != 1 {
		t.Errorf("today's snapshot = %+v, want the queue's %+v", last, counts)
	}
	// Derived from the rows' history: the failed row, failed three days ago, is on the pile from
	// then; the uncertain row entered its state 30 hours ago.
	if first := list[0]; !first.Backfilled || first.NeedsAdmin != 0 || first.Day != today.AddDays(-5) {
		t.Errorf("five days ago = %+v, want nothing yet", first)
	}
	if d := list[4]; d.NeedsAdmin < 1 || d.Reasons[schedule.ReasonPermanentError] != 1 {
		t.Errorf("yesterday = %+v, want the failed row", d)
	}
	if again, _ := st.AttentionSnapshotBackfill(ctx, now, 5); again != 0 {
		t.Errorf("a second backfill wrote %d days", again)
	}
}

// overviewTestParams are the overview's days and bins as the page asks for them (web builds them
// from views.HelsinkiDays and views.LatencyEdges), at now.
func overviewTestParams(now time.Time) store.OverviewParams {
	loc := schedule.Helsinki()
	t := now.In(loc)
	day := func(back int) time.Time { return time.Date(t.Year(), t.Month(), t.Day()-back, 0, 0, 0, 0, loc) }
	var bounds []time.Time
	for i := 59; i >= -1; i-- {
		bounds = append(bounds, day(i))
	}
	var edges []float64
	for m := 0; m < 36*60; m += 30 {
		edges = append(edges, float64(m*60))
	}
	for _, d := range []time.Duration{36 * time.Hour, 72 * time.Hour, 7 * 24 * time.Hour, schedule.VerifyMaxAge} {
		edges = append(edges, d.Seconds())
	}
	back := (int(t.Weekday()) + 6) % 7
	return store.OverviewParams{Now: now, DayBounds: bounds, LatencyEdges: edges, LatencyFrom: day(29),
		ThisWeek: day(back), LastWeek: day(back + 7), Today: day(0), SnapshotsFrom: schedule.HelsinkiDate(day(59))}
}

// registeredFixture is one registered row of TestOverviewCountedDaysEqualALiveCount.
type registeredFixture struct {
	registeredAt time.Time
	// latency is registered_at − submitted_at; nil: no submission time.
	latency *time.Duration
	// enteredAt is when the row entered registered, when not at registeredAt (marked later).
	enteredAt time.Time
}

// expectedRegistered computes the overview's registered numbers straight from the rows: each
// row's Helsinki day and its bin by the edges.
func expectedRegistered(p store.OverviewParams, rows []registeredFixture) (perDay []int64, latency [3][]int64) {
	perDay = make([]int64, len(p.DayBounds)-1)
	for k := range latency {
		latency[k] = make([]int64, len(p.LatencyEdges))
	}
	for _, r := range rows {
		if r.registeredAt.After(p.Now) {
			continue
		}
		for i := range perDay {
			if !r.registeredAt.Before(p.DayBounds[i]) && r.registeredAt.Before(p.DayBounds[i+1]) {
				perDay[i]++
			}
		}
		if r.latency == nil {
			continue
		}
		bin := 0
		for j, e := range p.LatencyEdges {
			if r.latency.Seconds() >= e {
				bin = j
			}
		}
		if !r.registeredAt.Before(p.LatencyFrom) {
			latency[0][bin]++
		}
		if !r.registeredAt.Before(p.ThisWeek) {
			latency[1][bin]++
		} else if !r.registeredAt.Before(p.LastWeek) {
			latency[2][bin]++
		}
	}
	return perDay, latency
}

// The overview's registrations per day and time-to-registration bins are the same whether every
// row is counted live or the finished days come from registered_days and only the rest live, and
// both equal a count made here from the rows themselves: across the autumn clock change (Sunday 25
// October 2026 is 25 hours long in Helsinki, its 03:00–04:00 twice), at the bins' edges, for a
// row registered before its submission, one without a submission time, one older than 14 days,
// and one marked registered today with a registration time on a day counted already. A pool too
// small to lend the overview three connections reads it in one transaction, to the same numbers.
func TestOverviewCountedDaysEqualALiveCount(t *testing.T) {
	t.Parallel()
	counter := &storetest.QueryCounter{}
	st, url := storetest.NewWithURL(t, storetest.Options{Tracer: counter})
	ctx := t.Context()
	small, err := store.Open(ctx, url, store.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(small.Close)
	// Tuesday 27 October 2026, 12:00 in Helsinki: the clock change was on Sunday, this week.
	now := time.Date(2026, 10, 27, 10, 0, 0, 0, time.UTC)
	p := overviewTestParams(now)
	course := storetest.AddCourse(t, st, storetest.Course{Name: "Ohjelmoinnin perusteet", Code: "TKT10002"})
	anna := storetest.AddStudent(t, st, storetest.Student{FirstName: "Anna", LastName: "Äijälä", Email: "anna@example.invalid", StudentNumber: "014979622"})
	d := func(v time.Duration) *time.Duration { return &v }
	utc := func(day, h, m int) time.Time { return time.Date(2026, 10, day, h, m, 0, 0, time.UTC) }
	rows := []registeredFixture{
		{registeredAt: utc(24, 21, 0), latency: d(270*time.Minute - time.Second)},               // 00:00 on the 25th, EEST
		{registeredAt: utc(25, 0, 30), latency: d(270 * time.Minute)},                           // 03:30 EEST, the first time
		{registeredAt: utc(25, 1, 30), latency: d(10*time.Hour + 30*time.Minute - time.Second)}, // 03:30 EET, the second
		{registeredAt: utc(25, 21, 59), latency: d(29 * time.Hour)},                             // 23:59 EET, still the 25th
		{registeredAt: utc(25, 22, 0), latency: d(36 * time.Hour)},                              // 00:00 on the 26th
		{registeredAt: utc(24, 20, 59), latency: d(-10 * time.Minute)},                          // 23:59 on the 24th, before its submission
		{registeredAt: utc(20, 9, 0), latency: d(20 * 24 * time.Hour)},                          // last week, past the give-up age
		{registeredAt: utc(19, 9, 0)},                                                           // last week, no submission time
		{registeredAt: utc(1, 9, 0), latency: d(5 * time.Hour)},                                 // within 30 days? 26 days back
		{registeredAt: time.Date(2026, 9, 20, 9, 0, 0, 0, time.UTC), latency: d(5 * time.Hour)}, // within 60, not 30
		{registeredAt: now.Add(-time.Hour), latency: d(6 * time.Hour)},                          // today
	}
	add := func(r registeredFixture) {
		reg := storetest.Registration{Student: anna, Course: course, State: "registered", StateChangedAt: r.registeredAt, SisuAttainmentID: "otm-" + storetest.NewID()}
		if r.latency != nil {
			reg.SubmittedAt = new(r.registeredAt.Add(-*r.latency))
		}
		id := storetest.AddRegistration(t, st, reg)
		if !r.enteredAt.IsZero() {
			storetest.LMSExec(t, st, `UPDATE credit_registrations SET state_entered_at = $2 WHERE id = $1`, id, r.enteredAt)
		}
	}
	for _, r := range rows {
		add(r)
	}
	check := func(when string) {
		t.Helper()
		counter.Reset()
		got, err := st.OverviewGet(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(counter.Statements(), func(q string) bool { return strings.HasPrefix(q, "SET TRANSACTION SNAPSHOT") }) {
			t.Errorf("%s: the overview did not read on connections of its own in one snapshot", when)
		}
		one, err := small.OverviewGet(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(one, got) {
			t.Errorf("%s: read in one transaction %+v,\non three connections %+v", when, one, got)
		}
		perDay, latency := expectedRegistered(p, rows)
		if !slices.Equal(got.Outcomes[store.OutcomeRegistered], perDay) {
			t.Errorf("%s: registered per day = %v, want %v", when, got.Outcomes[store.OutcomeRegistered], perDay)
		}
		for k, name := range []string{"30 days", "this week", "last week"} {
			if !slices.Equal(got.Latency[k], latency[k]) {
				t.Errorf("%s: time to registration, %s = %v, want %v", when, name, got.Latency[k], latency[k])
			}
		}
	}
	check("all live")

	n, err := st.RegisteredDaysRoll(ctx, now)
	// From the first registered row's day (20 September) to yesterday.
	if want := 37; err != nil || n != want {
		t.Fatalf("RegisteredDaysRoll counted %d days (%v), want %d", n, err, want)
	}
	check("counted days")

	// Marked registered today, with the registration time Sisu gave on the 25th, counted already.
	late := registeredFixture{registeredAt: utc(25, 12, 0), latency: d(2 * time.Hour), enteredAt: now.Add(-30 * time.Minute)}
	add(late)
	rows = append(rows, late)
	check("a row marked registered after its day was counted")
	if again, err := st.RegisteredDaysRoll(ctx, now); err != nil || again != 0 {
		t.Errorf("a second roll counted %d days (%v)", again, err)
	}
	// The next day's roll counts today; the numbers stay.
	if n, err := st.RegisteredDaysRoll(ctx, now.Add(24*time.Hour)); err != nil || n != 1 {
		t.Errorf("the next day's roll counted %d days (%v), want 1", n, err)
	}
	check("today counted too")
}
