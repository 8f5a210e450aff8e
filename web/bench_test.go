package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"regdesk/store"
	"regdesk/store/demo"
	"regdesk/store/storetest"
	"regdesk/web"
)

// benchNow and the ledger are store's benchmark ledger (store/bench_test.go): the same key, so
// both packages use the one million-row database make bench builds once.
var benchNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func benchLedger(b *testing.B) *store.Store {
	b.Helper()
	if testing.Short() {
		b.Skip("the benchmark ledger takes minutes to write")
	}
	rows := 1_000_000
	if s := os.Getenv("REGDESK_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("REGDESK_BENCH_ROWS=%q is not a positive number", s)
		}
		rows = n
	}
	return storetest.Persistent(b, fmt.Sprintf("demo rows=%d seed=1 now=%s", rows, benchNow.Format(time.RFC3339)), func(st *store.Store) error {
		_, err := demo.Write(context.Background(), st, demo.Config{Rows: rows, Seed: 1, Now: benchNow, SkipForeignKeyChecks: true})
		return err
	})
}

// benchPage serves regdesk on the benchmark ledger and returns a function fetching path as a
// signed-in support person, the way a browser asks for a page.
func benchPage(b *testing.B, deps web.Deps) func(path string) {
	st := benchLedger(b)
	// What a running server keeps up to date (maintenance.Rollups): the day's snapshot, the modules'
	// finished weeks and the registered rows' finished days. A kept ledger written before these existed gets them here, once.
	ctx := context.Background()
	if _, err := st.AttentionSnapshotTake(ctx, benchNow); err != nil {
		b.Fatal(err)
	}
	if _, err := st.CourseWeeksRoll(ctx, benchNow); err != nil {
		b.Fatal(err)
	}
	if _, err := st.RegisteredDaysRoll(ctx, benchNow); err != nil {
		b.Fatal(err)
	}
	deps.Store, deps.Now, deps.Session = st, func() time.Time { return benchNow }, web.SessionConfig{Insecure: true}
	srv := web.New(deps)
	b.Cleanup(srv.Close)
	server := httptest.NewServer(srv.Routes())
	b.Cleanup(server.Close)
	// A support account of the benchmark's own (the ledger is kept between runs).
	email := fmt.Sprintf("bench-%d@example.invalid", time.Now().UnixNano())
	hash, err := st.HashPassword(testPassword)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.AccountCreate(ctx, store.AccountCreateParams{Name: "Bench Support", Email: email,
		Role: string(web.RoleSupport), PasswordHash: hash}); err != nil {
		b.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	resp, err := client.PostForm(server.URL+"/login", url.Values{"email": {email}, "password": {testPassword}})
	if err != nil {
		b.Fatal(err)
	}
	_ = resp.Body.Close()
	return func(path string) {
		resp, err := client.Get(server.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s = %d", path, resp.StatusCode)
		}
	}
}

// BenchmarkOverviewCold is GET /overview with nothing shared: every request reads the ledger.
func BenchmarkOverviewCold(b *testing.B) {
	get := benchPage(b, web.Deps{})
	for b.Loop() {
		get("/overview")
	}
}

// BenchmarkOverviewWarm is GET /overview within the minute one reading is shared for.
func BenchmarkOverviewWarm(b *testing.B) {
	get := benchPage(b, web.Deps{OverviewTTL: time.Hour})
	get("/overview")
	for b.Loop() {
		get("/overview")
	}
}

// BenchmarkOverviewCourseModules is support's GET /courses: every module's numbers, uncached.
func BenchmarkOverviewCourseModules(b *testing.B) {
	get := benchPage(b, web.Deps{})
	for b.Loop() {
		get("/courses")
	}
}
