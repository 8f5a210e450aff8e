package web

import (
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
)

func TestRequireRoleAndRequireUserRefuseWithTheRightStatus(t *testing.T) {
	t.Parallel()
	s := &Server{log: slog.New(slog.DiscardHandler), now: time.Now}
	reached := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	supportOnly := s.requireUser(s.requireRole(RoleSupport, RoleAdmin)(reached))

	tests := []struct {
		name   string
		actor  *Actor
		method string
		htmx   bool
		boost  bool
		status int
		hxTo   string
	}{
		{"admin", &Actor{Role: RoleAdmin}, http.MethodPost, false, false, http.StatusTeapot, ""},
		{"support", &Actor{Role: RoleSupport}, http.MethodPost, false, false, http.StatusTeapot, ""},
		{"teacher", &Actor{Role: RoleTeacher, CourseIDs: []string{"c"}}, http.MethodPost, false, false, http.StatusForbidden, ""},
		{"teacher htmx", &Actor{Role: RoleTeacher}, http.MethodPost, true, false, http.StatusForbidden, ""},
		{"anonymous POST", nil, http.MethodPost, false, false, http.StatusUnauthorized, ""},
		{"anonymous htmx POST", nil, http.MethodPost, true, false, http.StatusUnauthorized, "/login?next=%2Fregistrations%2Fx"},
		{"anonymous GET", nil, http.MethodGet, false, false, http.StatusSeeOther, ""},
		// A boosted link is a navigation: back to the link, not to the page it was clicked on.
		{"anonymous boosted GET", nil, http.MethodGet, true, true, http.StatusUnauthorized, "/login?next=%2Fregistrations%2Fx%2Fact"},
		{"anonymous htmx GET", nil, http.MethodGet, true, false, http.StatusUnauthorized, "/login?next=%2Fregistrations%2Fx"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(tc.method, "http://regdesk.test/registrations/x/act", nil)
			if tc.htmx {
				r.Header.Set("HX-Request", "true")
				r.Header.Set("HX-Current-URL", "http://regdesk.test/registrations/x")
			}
			if tc.boost {
				r.Header.Set("HX-Boosted", "true")
			}
			if tc.actor != nil {
				r = r.WithContext(withActor(r.Context(), tc.actor))
			}
			w := httptest.NewRecorder()
			supportOnly.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Errorf("status = %d, want %d", w.Code, tc.status)
			}
			if got := w.Header().Get("HX-Redirect"); got != tc.hxTo {
				t.Errorf("HX-Redirect = %q, want %q", got, tc.hxTo)
			}
			if tc.status == http.StatusForbidden && !strings.Contains(w.Body.String(), "Your role (teacher) does not allow this") {
				t.Errorf("the 403 does not say why:\n%s", w.Body.String())
			}
		})
	}
}

func TestClientAddrBelievesForwardedForOnlyFromTrustedProxies(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		remote, xff string
		trusted     []netip.Prefix
		want        string
	}{
		{"192.0.2.7:5000", "203.0.113.9", nil, "192.0.2.7"},
		{"192.0.2.7:5000", "203.0.113.9", proxies, "192.0.2.7"},
		{"10.0.0.2:5000", "203.0.113.9", proxies, "203.0.113.9"},
		// A client may send its own X-Forwarded-For; only the hops the proxies added count.
		{"10.0.0.2:5000", "198.51.100.1, 203.0.113.9, 10.0.0.3", proxies, "203.0.113.9"},
		{"10.0.0.2:5000", "", proxies, "10.0.0.2"},
		{"10.0.0.2:5000", "garbage", proxies, "10.0.0.2"},
		{"[::ffff:192.0.2.7]:5000", "", nil, "192.0.2.7"},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(http.MethodPost, "/login", nil)
		r.RemoteAddr = tc.remote
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := clientAddr(r, tc.trusted); got != tc.want {
			t.Errorf("clientAddr(%s, XFF %q) = %s, want %s", tc.remote, tc.xff, got, tc.want)
		}
	}
}

func TestFlashSurvivesOneRedirectAndNeedsNoSession(t *testing.T) {
	t.Parallel()
	s := &Server{log: slog.New(slog.DiscardHandler), now: time.Now, sessions: scs.New()} // scs's memory store
	var shown []string
	mux := http.NewServeMux()
	mux.HandleFunc("POST /act", func(w http.ResponseWriter, r *http.Request) {
		s.setFlash(r, "Saved.")
		redirect(w, r, "/")
	})
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) { shown = append(shown, s.page(r, "Queue").Flash) })
	h := s.sessions.LoadAndSave(s.identify(mux))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}

	resp, err := c.Post(srv.URL+"/act", "text/plain", nil) // follows the 303 to GET /
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp, err = c.Get(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(shown) != 2 || shown[0] != "Saved." || shown[1] != "" {
		t.Errorf("flashes shown = %q, want Saved. once", shown)
	}

	// An answer made before the session middleware (a cross-origin refusal) renders a page too.
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	if got := s.page(r, "Error").Flash; got != "" {
		t.Errorf("page without a session = %q", got)
	}
}
