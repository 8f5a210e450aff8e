package storetest_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"regdesk/store/storetest"
	"regdesk/store/storetest/faultproxy"
)

func TestThroughProxyReachesTheTestDatabase(t *testing.T) {
	t.Parallel()
	_, dbURL := storetest.NewWithURL(t, storetest.Options{})
	p, viaProxy := storetest.ThroughProxy(t, dbURL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, viaProxy)
	if err != nil {
		t.Fatalf("connect through %s: %v", p, err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM credit_registrations`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a fresh database through the proxy: %d rows, %v", n, err)
	}
	p.Set(faultproxy.Hang)
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	if err := conn.QueryRow(short, `SELECT 1`).Scan(&n); err == nil {
		t.Fatalf("a query through a hung proxy answered")
	}
}
