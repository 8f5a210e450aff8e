package main

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"regdesk/store/storetest"
)

// linkAttr finds the addresses a page links to or loads a region from.
var linkAttr = regexp.MustCompile(`(?:href|hx-get)="(/[^"]*)"`)

// idSegment turns a path's ids into {id}, so the pages visited can be named by route.
var idSegment = regexp.MustCompile(`/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestServeOnAReadOnlyRoleLoadsEveryPage runs serve as a role that may only read the LMS's tables,
// on demo data the LMS's way, and has support, a teacher and an admin open every page they can
// reach by following the links: each answers 200, none says something went wrong, and serve logs
// no error (a statement the role may not run would be one).
func TestServeOnAReadOnlyRoleLoadsEveryPage(t *testing.T) {
	t.Parallel()
	st, dbURL := storetest.NewWithURL(t, storetest.Options{}) // dbURL acts as the read-only role
	ctx := context.Background()
	now := storetest.Now().UTC().Format(time.RFC3339)
	owner := storetest.OwnerURL(dbURL)
	if err := run(ctx, []string{"seed", "-database-url", owner, "-rows", "300", "-now", now, "-if-empty"}, env(nil), io.Discard, io.Discard); err != nil {
		t.Fatalf("seed: %v", err)
	}
	if _, err := ensureDemoAccounts(ctx, st); err != nil {
		t.Fatal(err)
	}
	lmsURL, lmsToken, _, stopLMS, err := startDemoLMS(ctx, owner, "127.0.0.1:0", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stopLMS()

	srvCtx, cancel := context.WithCancel(ctx)
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(srvCtx, []string{"serve", "-clock-from", now}, env(map[string]string{
			"DATABASE_URL": dbURL, "REGDESK_ADDR": "127.0.0.1:0", "SESSION_SECURE": "0",
			"LMS_URL": lmsURL, "LMS_TOKEN": lmsToken, "LMS_ACCOUNT_LINKING_SINCE": "2000-01-01T00:00:00Z",
		}), &stdout, &stderr)
	}()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("serve did not shut down")
		}
	}()
	base := ""
	addrRE := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	for deadline := time.Now().Add(10 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		base = addrRE.FindString(stdout.String())
		select {
		case err := <-done:
			t.Fatalf("serve ended early: %v\n%s", err, stderr.String())
		default:
		}
	}
	if base == "" {
		t.Fatalf("serve never printed its address\n%s", stderr.String())
	}

	for _, d := range demoAccounts {
		t.Run(d.Role, func(t *testing.T) {
			jar, _ := cookiejar.New(nil)
			c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
			resp, err := c.PostForm(base+"/login", url.Values{"email": {d.Email}, "password": {d.Password}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.Request.URL.Path == "/login" {
				t.Fatalf("%s could not sign in", d.Email)
			}
			routes := crawl(t, c, base, 250)
			want := map[string][]string{
				"support": {"/", "/overview", "/courses", "/courses/{id}", "/registrations/{id}", "/students/{id}", "/audit", "/alerts", "/settings", "/system"},
				// A teacher reads a registration in plain words on its student's page.
				"teacher": {"/courses", "/courses/{id}", "/students/{id}", "/alerts", "/settings"},
				"admin":   {"/", "/overview", "/courses/{id}", "/registrations/{id}", "/audit", "/admin/accounts", "/admin/accounts/{id}", "/system"},
			}[d.Role]
			for _, w := range want {
				if !slices.Contains(routes, w) {
					t.Errorf("%s reached no page %s by following links; reached %v", d.Role, w, routes)
				}
			}
		})
	}
	if log := stderr.String(); strings.Contains(log, "level=ERROR") {
		t.Errorf("serve logged errors on the read-only role:\n%s", log)
	}
}

// crawl follows every link from "/" that stays on base, up to limit addresses, and fails for each
// that does not answer 200 or says something went wrong. It returns the routes it reached.
func crawl(t *testing.T, c *http.Client, base string, limit int) []string {
	t.Helper()
	seen := map[string]bool{"/": true}
	queue := []string{"/"}
	perRoute := map[string]int{}
	var routes []string
	for len(queue) > 0 && len(seen) <= limit {
		path := queue[0]
		queue = queue[1:]
		resp, err := c.Get(base + path)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page := string(body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d", path, resp.StatusCode)
			continue
		}
		if strings.Contains(page, "Something went wrong") || strings.Contains(page, "SQLSTATE") {
			t.Errorf("GET %s says something went wrong", path)
		}
		route, _, _ := strings.Cut(idSegment.ReplaceAllString(resp.Request.URL.Path, "/{id}"), "?")
		if !slices.Contains(routes, route) {
			routes = append(routes, route)
		}
		if !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
			continue
		}
		for _, m := range linkAttr.FindAllStringSubmatch(page, -1) {
			next := html.UnescapeString(m[1])
			next, _, _ = strings.Cut(next, "#")
			key, _, _ := strings.Cut(idSegment.ReplaceAllString(next, "/{id}"), "?")
			// Static files and downloads are not pages; a few of each route is every shape of it.
			if seen[next] || strings.HasPrefix(next, "/static/") || perRoute[key] >= 4 {
				continue
			}
			seen[next] = true
			perRoute[key]++
			queue = append(queue, next)
		}
	}
	slices.Sort(routes)
	return routes
}
