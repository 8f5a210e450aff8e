// Package web is regdesk's HTTP side: routes, middleware, handlers, and the mapping from ledger
// rows and scheduling verdicts to view models.
package web

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"regdesk/handaction"
	"regdesk/schedule"
	"regdesk/sisucheck"
	"regdesk/static"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// Deps is what a Server is built from.
type Deps struct {
	Store *store.Store
	Log   *slog.Logger
	// Now is the clock; tests pass a fixed one.
	Now func() time.Time
	// Session sets the session cookie and lifetimes; its zero value is the production default.
	Session SessionConfig
	// TrustedOrigins are other origins (scheme://host[:port]) whose pages may send regdesk
	// state-changing requests. Origins that do not parse are logged and ignored; the caller
	// validates them first.
	TrustedOrigins []string
	// ProxyAuth turns on single sign-on behind an authenticating proxy; its zero value is off.
	ProxyAuth ProxyAuth
	// TrustedProxies are reverse proxies whose X-Forwarded-For names the client, so that sign-in
	// limits count people rather than the proxy.
	TrustedProxies []netip.Prefix
	// LoginLimits bound failed sign-ins; zero fields take the defaults.
	LoginLimits LoginLimits
	// Suotar is where regdesk looks students up in Sisu; nil when Suotar is not configured, and
	// the lookup button then says so.
	Suotar sisucheck.Suotar
	// LMS is the LMS's admin endpoints, through which every hand action is taken as the person
	// acting; nil when LMS_URL is not set, and hand actions are off (pages say so).
	LMS handaction.LMS
	// CountsTTL is how long the queue's counts are shared before they are counted again; 0
	// counts on every request (tests, where the clock stands still).
	CountsTTL time.Duration
	// RequestTimeout bounds every request, whatever it waits on (DefaultRequestTimeout when 0):
	// the statement timeout and a little, so a database that hangs costs a person seconds, not
	// minutes, and the page says so.
	RequestTimeout time.Duration
	// LookupTimeout is how much longer a Sisu lookup may take: Suotar's timeout.
	LookupTimeout time.Duration
	// ClaimLapse is how long a claim nobody touches keeps counting (store.DefaultClaimLapse when 0).
	ClaimLapse time.Duration
	// ExportLimit caps an export's rows (store.ExportMaxRows when 0 or more).
	ExportLimit int
	// ExportInlineRows is how many rows a person's export may hold and still stream straight to
	// the browser; a longer one is written to a file under ExportDir while a page shows its
	// progress (DefaultExportInlineRows when 0; the API's exports always stream).
	ExportInlineRows int
	// ExportDir is the folder of regdesk's own where long exports' files are written, each
	// instance in a folder of its own inside, swept at start and on Close (DefaultExportDir when
	// ""; export_dir.go).
	ExportDir string
	// PasswordLinkTTL is how long a one-time password link works (store.DefaultPasswordLinkTTL
	// when 0).
	PasswordLinkTTL time.Duration
	// BulkInlineRows is how many rows a bulk apply may hold and still answer with its result at
	// once; a larger one runs in the background with a progress page (DefaultBulkInlineRows when 0,
	// none inline when negative).
	BulkInlineRows int
	// BulkQueued, when not nil, is told that a request queued a bulk apply (store.BulkJobCreate),
	// so this instance's maintenance.BulkApply takes it up at once rather than at its next round.
	BulkQueued func()
	// WaitingTarget is how many working days a row may wait for a person before the queue marks
	// it (schedule.DefaultWaitingTarget when 0).
	WaitingTarget int
	// Mailing is whether alert mails go out (SMTP_URL is set); /alerts says so when not.
	Mailing bool
	// AlertsTTL is how stale the every-page alert banner may be (DefaultAlertsTTL when 0).
	AlertsTTL time.Duration
	// MirrorStaleAfter is how far behind the LMS's ledger regdesk's copy of it may fall before
	// every page says its lists are behind (DefaultMirrorStaleAfter when 0; never when negative).
	MirrorStaleAfter time.Duration
	// OverviewTTL is how long one reading of /overview, and of the course modules' numbers on
	// /courses, is shared (0: read on every request, for tests, where the clock stands still).
	OverviewTTL time.Duration
	// HeavyPages is how many of the heavy pages (a course's page, the course list, the overview)
	// run at once, and as many exports more (heavySlots of the pool when 0); the others wait.
	HeavyPages int
	// HeavyWait is how long a heavy page may wait for its slot before its own RequestTimeout
	// starts; past it the person is told the page is busy (DefaultHeavyWait when 0).
	HeavyWait time.Duration
	// PasswordChecks is how many password checks (bcrypt) this instance runs at once; the others
	// wait while they can still end within their deadline (one per core, GOMAXPROCS, when 0).
	PasswordChecks int
}

// DefaultRequestTimeout is RequestTimeout's default: the default statement timeout (5 s) and a
// second for the session and the page around it.
const DefaultRequestTimeout = 6 * time.Second

// SessionConfig is how sessions last and how their cookie is sent.
type SessionConfig struct {
	// Insecure drops the cookie's Secure flag: only for plain-HTTP local development.
	Insecure bool
	// IdleTimeout ends a session nobody used for this long (default DefaultIdleTimeout).
	IdleTimeout time.Duration
	// Lifetime ends every session this long after sign-in, used or not (default DefaultLifetime).
	Lifetime time.Duration
}

// The session defaults: an idle office afternoon ends a session, and nobody stays signed in from
// one working day to the next.
const (
	DefaultIdleTimeout = 2 * time.Hour
	DefaultLifetime    = 12 * time.Hour
)

// ProxyAuth is single sign-on through an authenticating reverse proxy that puts the person's
// e-mail address in Header. The header is believed only from the Trusted addresses.
type ProxyAuth struct {
	Header  string
	Trusted []netip.Prefix
}

// LoginLimits bound failed sign-ins per client address and per account within Window. Several
// people share an office's address, so it allows more than an account does.
type LoginLimits struct {
	PerAddress int           // default 30
	PerAccount int           // default 10
	Window     time.Duration // default 15 minutes
}

// Server carries what every handler needs. Build it with New.
type Server struct {
	store          *store.Store
	log            *slog.Logger
	now            func() time.Time
	sessions       *scs.SessionManager
	sessionStore   *store.SessionStore
	idleTimeout    time.Duration
	requestTimeout time.Duration
	lookupTimeout  time.Duration
	dbTrouble      troubleLog
	// stopping ends when the server is told to drain: lookups still waiting on Suotar stop and
	// are recorded as interrupted.
	stopping       context.Context
	drain          context.CancelCauseFunc
	csrf           *http.CrossOriginProtection
	proxy          ProxyAuth
	trustedProxies []netip.Prefix
	byAddress      store.LoginLimit
	byAccount      store.LoginLimit
	lookups        *sisucheck.Service
	// actions takes hand actions through the LMS.
	actions        *handaction.Service
	counts         *shared[store.RegistrationCounts]
	claimLapse     time.Duration
	waitingTarget  int
	bulkInlineRows int
	bulkQueued     func()
	// passwordLinkTTL is how long a one-time password link works.
	passwordLinkTTL time.Duration
	alerts          *shared[[]store.AlertRow]
	// mirror is how far behind regdesk's copy of the ledger is, for the every-page banner;
	// mirrorStaleAfter how far behind it may be before the banner says so (never when negative).
	mirror           *shared[store.MirrorStatus]
	mirrorStaleAfter time.Duration
	mailing          bool
	overview         *shared[overviewRead]
	// modules is support's course-module numbers on /courses, shared like the overview's.
	modules     *shared[[]store.CourseModuleStats]
	background  sync.WaitGroup
	exportLimit int
	// exportInlineRows, exportFolder and exportJobs are the long exports (export_jobs.go,
	// export_dir.go); exportFolder is nil when it could not be made.
	exportInlineRows int
	exportFolder     *exportFolder
	exportJobs       exportJobs
	// instance names this process among the instances and the restarts: its exports' folder,
	// and the exports a person's session remembers.
	instance string
	// heavy bounds the heavy pages, exports the exports, each to a share of the pool (gate).
	heavy, exports *gate
	// heavyWait is how long a heavy page may wait for its slot (gate.wait).
	heavyWait time.Duration
	// passwords bounds the password checks to the cores (passwordGate).
	passwords *passwordGate
}

// New builds a Server from its dependencies.
func New(d Deps) *Server {
	s := &Server{store: d.Store, log: d.Log, now: d.Now, proxy: d.ProxyAuth, trustedProxies: d.TrustedProxies,
		counts: newCountsShare(d.CountsTTL, cmp.Or(d.RequestTimeout, DefaultRequestTimeout)), claimLapse: cmp.Or(d.ClaimLapse, store.DefaultClaimLapse),
		waitingTarget: cmp.Or(d.WaitingTarget, schedule.DefaultWaitingTarget), passwordLinkTTL: cmp.Or(d.PasswordLinkTTL, store.DefaultPasswordLinkTTL),
		alerts: newBannerShare[[]store.AlertRow](cmp.Or(d.AlertsTTL, DefaultAlertsTTL), cmp.Or(d.RequestTimeout, DefaultRequestTimeout)), mailing: d.Mailing,
		mirror: newBannerShare[store.MirrorStatus](mirrorStatusTTL, cmp.Or(d.RequestTimeout, DefaultRequestTimeout)), mirrorStaleAfter: cmp.Or(d.MirrorStaleAfter, DefaultMirrorStaleAfter),
		exportLimit: store.ExportMaxRows, bulkInlineRows: cmp.Or(d.BulkInlineRows, DefaultBulkInlineRows), bulkQueued: d.BulkQueued,
		exportInlineRows: cmp.Or(d.ExportInlineRows, DefaultExportInlineRows), instance: store.NewID()[:8]}
	if d.ExportLimit > 0 && d.ExportLimit < store.ExportMaxRows {
		s.exportLimit = d.ExportLimit
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	exportDir := cmp.Or(d.ExportDir, DefaultExportDir())
	if f, swept, err := openExportFolder(exportDir, s.instance); err != nil {
		s.log.Error("long exports cannot be written: their folder cannot be made", "dir", exportDir, "err", err)
	} else {
		s.exportFolder = f
		if swept > 0 {
			s.log.Info("deleted the long exports that stopped instances left behind", "dir", exportDir, "files", swept)
		}
	}
	s.lookups = &sisucheck.Service{Store: d.Store, Suotar: d.Suotar, Now: s.clock, Log: s.log}
	s.actions = &handaction.Service{Store: d.Store, LMS: d.LMS, Now: s.clock, Log: s.log}
	lim := d.LoginLimits
	window := cmp.Or(lim.Window, 15*time.Minute)
	s.byAddress = store.LoginLimit{Max: cmp.Or(lim.PerAddress, 30), Window: window}
	s.byAccount = store.LoginLimit{Max: cmp.Or(lim.PerAccount, 10), Window: window}

	s.csrf = http.NewCrossOriginProtection()
	for _, o := range d.TrustedOrigins {
		if err := s.csrf.AddTrustedOrigin(o); err != nil {
			s.log.Error("trusted origin ignored", "origin", o, "err", err)
		}
	}
	s.csrf.SetDenyHandler(s.handle(func(w http.ResponseWriter, r *http.Request) error { return errCrossOrigin }))

	s.stopping, s.drain = context.WithCancelCause(context.Background())
	s.requestTimeout = cmp.Or(d.RequestTimeout, DefaultRequestTimeout)
	slots := d.HeavyPages
	if slots <= 0 && d.Store != nil {
		slots = heavySlots(d.Store.Pool().Config().MaxConns)
	}
	s.heavyWait = cmp.Or(d.HeavyWait, DefaultHeavyWait)
	s.heavy, s.exports = newGate(slots, s.requestTimeout, s.heavyWait), newGate(slots, 0, 0)
	s.passwords = newPasswordGate(d.PasswordChecks)
	s.lookupTimeout = d.LookupTimeout
	s.overview = &shared[overviewRead]{ttl: d.OverviewTTL, timeout: s.requestTimeout}
	s.modules = &shared[[]store.CourseModuleStats]{ttl: d.OverviewTTL, timeout: s.requestTimeout}
	s.dbTrouble.every = 10 * time.Second
	s.sessionStore = store.NewSessionStore(d.Store)
	sm := scs.New()
	sm.Store = s.sessionStore
	// The table holds hashes of the tokens: a leaked copy of it signs nobody in.
	sm.HashTokenInStore = true
	// The idle timeout is kept by loadSession, which writes a session only when something in it
	// changed; scs's own would write every session on every request.
	s.idleTimeout = cmp.Or(d.Session.IdleTimeout, DefaultIdleTimeout)
	sm.Lifetime = cmp.Or(d.Session.Lifetime, DefaultLifetime)
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Path = "/"
	// No Expires: closing the browser ends the session; the server enforces both timeouts anyway.
	sm.Cookie.Persist = false
	sm.Cookie.Secure = !d.Session.Insecure
	sm.Cookie.Name = "regdesk_session"
	if sm.Cookie.Secure {
		// The __Host- prefix makes browsers refuse the cookie unless it is Secure, host-only and for
		// every path, so no sibling subdomain can plant or shadow it.
		sm.Cookie.Name = "__Host-regdesk_session"
	}
	sm.ErrorFunc = s.renderError
	s.sessions = sm
	return s
}

// Drain tells the server it is shutting down: lookups still waiting on Suotar stop waiting,
// record themselves as interrupted and answer, so a graceful shutdown need not outwait Suotar's
// timeout. Call it as the HTTP server's shutdown begins (http.Server.RegisterOnShutdown).
func (s *Server) Drain() { s.drain(sisucheck.ErrInterrupted) }

// Close waits for the long exports a request started in the background and removes their files.
// It does not close the store.
func (s *Server) Close() {
	s.background.Wait()
	s.exportJobs.removeAll()
	s.exportFolder.close()
}

// clock returns now in UTC at the database's microsecond precision, so the Go rules and their SQL
// mirror judge the same instant the same way.
func (s *Server) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Routes returns the complete handler tree.
func (s *Server) Routes() http.Handler {
	r := chi.NewRouter()
	// CrossOriginProtection refuses state-changing requests from other sites on every route.
	r.Use(requestID, s.accessLog, s.recoverPanic, s.deadline, securityHeaders, negotiateLanguage, s.csrf.Handler, middleware.GetHead)
	// Error pages know who is asking, so a signed-in person keeps their top bar.
	notFound := s.handle(func(w http.ResponseWriter, r *http.Request) error { return errNotFound })
	r.NotFound(s.withPerson(notFound).ServeHTTP)
	methodNotAllowed := s.handle(func(w http.ResponseWriter, r *http.Request) error { return errMethod })
	r.MethodNotAllowed(s.withPerson(methodNotAllowed).ServeHTTP)
	// Static files are read, never posted to.
	r.Get("/static/*", static.Handler().ServeHTTP)
	r.Get("/favicon.ico", static.Favicon().ServeHTTP)
	r.Get("/healthz", s.healthz)

	// The read-only JSON API: a token, never a session, names the person; only GET (and HEAD).
	r.Route("/api/v1", func(r chi.Router) {
		r.Use(s.apiAuth)
		r.NotFound(s.apiNotFound)
		r.Get("/courses/{id}/registrations", s.apiHandle(s.exports.wrap(s.courseExport)))
		r.Group(func(r chi.Router) {
			r.Use(s.apiRequirePipeline)
			r.Get("/registrations", s.apiHandle(s.apiRegistrationList))
			r.Get("/registrations/{id}", s.apiHandle(s.apiRegistrationShow))
			r.Get("/audit", s.apiHandle(s.exports.wrap(s.auditExport)))
		})
	})

	r.Group(func(r chi.Router) {
		r.Use(s.loadSession, s.identify)
		r.Get("/login", s.handle(s.loginForm))
		r.Post("/login", s.handle(s.login))
		r.Post("/logout", s.handle(s.logout))
		// A one-time link from an admin sets a password; its token is the only credential.
		r.Get("/password/{token}", s.handle(s.passwordSetForm))
		r.Post("/password/{token}", s.handle(s.passwordSet))

		// Everything below shows students' personal data: only signed-in people, and every query
		// is scoped by the person's courses (s.courseScope).
		r.Group(func(r chi.Router) {
			r.Use(s.requireUser)
			r.Get("/", s.handle(s.queueShow))
			r.Post("/language", s.handle(s.languageSet))
			r.Get("/queue/counts", s.handle(s.queueCountsShow))
			// Exports: every row the view matches, in the person's courses, as CSV or JSON.
			r.Get("/queue/export.csv", s.handle(s.exports.wrap(s.queueExport)))
			r.Get("/queue/export.json", s.handle(s.exports.wrap(s.queueExport)))
			r.Get("/courses/{id}/export.csv", s.handle(s.exports.wrap(s.courseExport)))
			r.Get("/courses/{id}/export.json", s.handle(s.exports.wrap(s.courseExport)))
			// A long export's progress and then its file, for the person who asked.
			r.Get("/exports/{id}", s.handle(s.exportJobShow))
			r.Get("/exports/{id}/file", s.handle(s.exportJobFile))
			r.Get("/registrations/{id}", s.handle(s.registrationShow))
			// Students and courses, in plain words for teachers; every query is scoped to the
			// person's courses, so a teacher finds only their own students.
			r.Get("/students", s.handle(s.studentList))
			r.Get("/students/search", s.handle(s.studentSearch))
			r.Get("/students/{id}", s.handle(s.studentShow))
			r.Get("/courses", s.handle(s.heavy.wrap(s.courseList)))
			r.Get("/courses/{id}", s.handle(s.heavy.wrap(s.courseShow)))
			// Alerts concern everyone, each person only what touches them; settings are one's own.
			r.Get("/alerts", s.handle(s.alertsShow))
			r.Get("/settings", s.handle(s.settingsShow))
			r.Post("/settings/tokens", s.handle(s.apiTokenCreate))
			r.Post("/settings/tokens/{id}/revoke", s.handle(s.apiTokenRevoke))
			r.Post("/settings/mail", s.handle(s.settingsMailSave))

			// Hand actions, lookups in Sisu and the audit page go here: support and admin only.
			r.Group(func(r chi.Router) {
				r.Use(s.requireRole(RoleSupport, RoleAdmin))
				r.Post("/registrations/{id}/lookup", s.handle(s.registrationLookup))
				r.Post("/registrations/{id}/actions/{action}", s.handle(s.registrationActionApply))
				r.Post("/registrations/{id}/claim", s.handle(s.registrationClaim))
				r.Post("/registrations/{id}/release", s.handle(s.registrationRelease))
				r.Post("/bulk/claim", s.handle(s.bulkClaim))
				r.Post("/bulk/preview", s.handle(s.bulkPreview))
				r.Post("/bulk/apply", s.handle(s.bulkApply))
				r.Get("/bulk/jobs", s.handle(s.bulkJobsShow))
				r.Get("/bulk/jobs/{id}", s.handle(s.bulkJobShow))
				r.Get("/audit", s.handle(s.auditList))
				r.Post("/alerts/{id}/acknowledge", s.handle(s.alertAcknowledge))
				// What an alert that counts calls, answers, completions or time counted: the
				// registrations behind them are of every course.
				r.Get("/alerts/counted/{rule}", s.handle(s.alertCountedShow))
				r.Get("/overview", s.handle(s.heavy.wrap(s.overviewShow)))
				r.Get("/system", s.handle(s.systemShow))
				r.Get("/audit/export.csv", s.handle(s.exports.wrap(s.auditExport)))
				r.Get("/audit/export.json", s.handle(s.exports.wrap(s.auditExport)))
			})

			// Accounts: admins only.
			r.Group(func(r chi.Router) {
				r.Use(s.requireRole(RoleAdmin))
				r.Get("/admin/accounts", s.handle(s.accountList))
				r.Post("/admin/accounts", s.handle(s.accountAdd))
				r.Get("/admin/accounts/{id}", s.handle(s.accountShow))
				r.Post("/admin/accounts/{id}", s.handle(s.accountUpdate))
				r.Post("/admin/accounts/{id}/disable", s.handle(s.accountDisable))
				r.Post("/admin/accounts/{id}/enable", s.handle(s.accountEnable))
				r.Post("/admin/accounts/{id}/password-link", s.handle(s.accountPasswordLink))
				r.Post("/admin/accounts/{id}/lms-user", s.handle(s.accountLMSUser))
				r.Post("/system/phases/{phase}/{control}", s.handle(s.systemPhaseControl))
				r.Post("/system/modules/{control}", s.handle(s.systemModuleControl))
				r.Post("/system/requeue", s.handle(s.systemRequeue))
			})
		})
	})
	return r
}

// withPerson loads the session and the person for h, for handlers outside the session group.
func (s *Server) withPerson(h http.Handler) http.Handler {
	return s.loadSession(s.identify(h))
}

// healthz answers whether the database answers: GET /healthz.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	// A second: a monitor asking every few seconds learns of an outage at once.
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.store.Ping(ctx); err != nil {
		s.dbTrouble.note(ctx, s, "health check failed", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("database unavailable\n"))
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// page builds the layout's view model for this request: the person in the top bar and the
// screens their role may open.
func (s *Server) page(r *http.Request, title string) views.Page {
	p := views.Page{Title: title, Flash: s.popFlash(r), Path: safeNext(r.URL.RequestURI())}
	a := actorFrom(r.Context())
	if a == nil {
		return p
	}
	p.User = &views.User{Name: a.Name, Role: string(a.Role), SingleSignOn: viaSSO(r.Context())}
	p.Nav = navFor(r, a)
	p.Alerts = s.bannerAlerts(r, a)
	p.MirrorBehind = s.mirrorBehind(r)
	return p
}

// navFor lists the top-level screens a's role may open. The queue is support's; a teacher's "/"
// leads to their courses (queueShow), so their first screen is the courses. The audit page is for
// the people who act (support and admin).
func navFor(r *http.Request, a *Actor) []views.NavItem {
	loc := i18n.From(r.Context())
	items := []views.NavItem{{Label: loc.T("nav.queue"), URL: "/"}}
	if a.CanAct() {
		items = append(items, views.NavItem{Label: loc.T("nav.overview"), URL: "/overview"})
	}
	items = append(items, views.NavItem{Label: loc.T("nav.courses"), URL: "/courses"})
	if a.CanAct() {
		items = append(items, views.NavItem{Label: loc.T("nav.audit"), URL: "/audit"}, views.NavItem{Label: loc.T("nav.system"), URL: "/system"})
	}
	if a.Role == RoleAdmin {
		items = append(items, views.NavItem{Label: loc.T("nav.accounts"), URL: "/admin/accounts"})
	}
	if a.Role == RoleTeacher {
		items = []views.NavItem{{Label: loc.T("nav.myCourses"), URL: "/courses"}}
	}
	items = append(items, views.NavItem{Label: loc.T("nav.alerts"), URL: "/alerts"}, views.NavItem{Label: loc.T("nav.settings"), URL: "/settings"})
	for i := range items {
		u := items[i].URL
		items[i].Active = u == r.URL.Path || (u != "/" && strings.HasPrefix(r.URL.Path, u+"/"))
	}
	return items
}
