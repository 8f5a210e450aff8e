package storetest

import (
	"net/url"
	"path"
	"testing"

	"regdesk/store/storetest/faultproxy"
)

// ThroughProxy returns a fault proxy in front of the database at dbURL and a URL that reaches the
// same database through it, so a test can make PostgreSQL hang or vanish under a real pool. The
// test server listens on a Unix socket (make test) or TCP (TEST_DATABASE_URL); either works.
func ThroughProxy(tb testing.TB, dbURL string) (*faultproxy.Proxy, string) {
	tb.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		tb.Fatalf("storetest: parse %s: %v", dbURL, err)
	}
	q := u.Query()
	var target string
	if dir := q.Get("host"); len(dir) > 0 && dir[0] == '/' {
		port := q.Get("port")
		if port == "" {
			port = u.Port()
		}
		if port == "" {
			port = "5432"
		}
		target = "unix:" + path.Join(dir, ".s.PGSQL."+port)
		q.Del("host")
		q.Del("port")
	} else {
		host, port := u.Hostname(), u.Port()
		if host == "" {
			host = "localhost"
		}
		if port == "" {
			port = "5432"
		}
		target = "tcp:" + host + ":" + port
	}
	p := faultproxy.New(tb, target)
	u.Host = p.Addr()
	q.Set("sslmode", "disable")
	u.RawQuery = q.Encode()
	return p, u.String()
}
