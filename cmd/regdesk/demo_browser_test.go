package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5/pgxpool"

	"regdesk/partner/smtp/smtptest"
	"regdesk/partner/suotar/suotarfake"
	"regdesk/store/storetest"
	"regdesk/web/browsertest"
)

// demoRun is make run's demo started by a test: its address, database and Sisu world.
type demoRun struct {
	base  string
	pool  *pgxpool.Pool
	world *suotarfake.World
}

// startDemo runs make run's demo on a fresh database until the test ends, and waits until it
// serves.
func startDemo(t *testing.T) demoRun {
	t.Helper()
	_, dbURL := storetest.NewWithURL(t, storetest.Options{})
	addr, pgdata := freeAddr(t), t.TempDir()
	env := map[string]string{
		"DATABASE_URL":             ownerURL(t, dbURL),
		"REGDESK_ADDR":             addr,
		"REGDESK_DEMO_SUOTAR_ADDR": freeAddr(t),
		"REGDESK_DEMO_LMS_ADDR":    freeAddr(t),
		"REGDESK_DEMO_SMTP_ADDR":   freeAddr(t),
		"REGDESK_DEMO_MAIL_ADDR":   freeAddr(t),
		"REGDESK_DEMO_MAILPIT":     smtptest.MailpitBinary(t),
		"REGDESK_PGDATA":           pgdata,
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"demo", "-rows", "300"}, func(k string) string { return env[k] }, &out, &errOut)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the demo did not stop within 30 s of being told to")
		}
	})
	for deadline := time.Now().Add(90 * time.Second); !strings.Contains(out.String(), "regdesk is serving on"); time.Sleep(100 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("the demo stopped: %v\n%s\n%s", err, out.String(), errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo did not serve within 90 s\n%s\n%s", out.String(), errOut.String())
		}
	}
	pool, err := pgxpool.New(ctx, ownerURL(t, dbURL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	world, err := suotarfake.LoadWorld(filepath.Join(pgdata, "suotar-world.json"))
	if err != nil {
		t.Fatal(err)
	}
	return demoRun{base: "http://" + addr, pool: pool, world: world}
}

func (d demoRun) one(t *testing.T, sql string, args ...any) string {
	t.Helper()
	var v string
	if err := d.pool.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
	return v
}

// auditActor names the person the LMS's newest audit row of action on target names ("" for
// none); target "" matches any.
func (d demoRun) auditActor(t *testing.T, action, target string) string {
	t.Helper()
	return d.one(t, `SELECT coalesce((SELECT d.first_name || ' ' || d.last_name
FROM credit_registration_admin_actions a JOIN user_details d ON d.user_id = a.actor_user_id
WHERE a.action::text = $1 AND ($2 = '' OR a.target_id::text = $2 OR a.target_phase = $2)
ORDER BY a.created_at DESC LIMIT 1), '')`, action, target)
}

// uncertainSisuHolds returns an uncertain row of the demo whose student has a course unit
// attainment on the row's course code in the fake Suotar's world.
func (d demoRun) uncertainSisuHolds(t *testing.T) string {
	t.Helper()
	persons, units := map[string]string{}, map[string]string{}
	for _, p := range d.world.Persons {
		persons[p.StudentNumber] = p.PersonID
	}
	for _, u := range d.world.CourseUnits {
		units[u.Code] = u.ID
	}
	held := map[[2]string]bool{}
	for _, a := range d.world.Attainments {
		if a.Type == "CourseUnitAttainment" {
			held[[2]string{a.PersonID, a.CourseUnitID}] = true
		}
	}
	rows, err := d.pool.Query(context.Background(), `SELECT id::text, coalesce(student_number, ''), coalesce(trim(uh_course_code), '')
FROM credit_registrations WHERE state = 'submission_uncertain' AND deleted_at IS NULL AND superseded_by_id IS NULL ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, sn, code string
		if err := rows.Scan(&id, &sn, &code); err != nil {
			t.Fatal(err)
		}
		if held[[2]string{persons[sn], units[code]}] {
			return id
		}
	}
	t.Fatal("the demo data has no uncertain row whose credit Sisu holds")
	return ""
}

// waitFor waits up to 10 s for the JavaScript expression js to be true in the tab.
func waitFor(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+js+")"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("browser: not true within 10 s: %s (%v)", js, err)
		}
	}
}

// act opens an action's form on the registration page the tab shows, gives the reason, ticks the
// risk box when the action asks for one, and submits.
func act(t *testing.T, ctx context.Context, name, reason string) {
	t.Helper()
	item := `[data-testid="action-` + name + `"]`
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(item+` [data-testid="action-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(item+` [data-testid="action-reason"]`)),
		chromedp.SendKeys(chromedp.CSS(item+` [data-testid="action-reason"]`), reason),
	); err != nil {
		t.Fatalf("browser: %s: %v", name, err)
	}
	risk, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('`+item+` [data-testid="action-confirm-risk"]')`))
	if err != nil {
		t.Fatal(err)
	}
	if risk {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(item+` [data-testid="action-confirm-risk"]`))); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(item+` [data-testid="action-submit"]`))); err != nil {
		t.Fatalf("browser: %s: %v", name, err)
	}
}

// TestBrowserDemoHandActionsReachTheLMS is issue 26's walk through make run's demo in Chromium:
// every kind of hand action goes to the demo's fake LMS as the person who acts, the LMS's audit
// names them, and the page shows the effect; Check now on an uncertain row Sisu holds ends
// registered within a minute through the stand-in for the LMS's verify phase.
func TestBrowserDemoHandActionsReachTheLMS(t *testing.T) {
	t.Parallel()
	d := startDemo(t)

	// An uncertain row whose student Sisu holds a course unit attainment for on the row's code:
	// its timed-out import landed.
	uncertain := d.uncertainSisuHolds(t)
	cancelled := d.one(t, `SELECT coalesce((SELECT id::text FROM credit_registrations
WHERE state IN ('failed_permanent', 'failed_retryable', 'no_usable_enrolment') AND deleted_at IS NULL AND superseded_by_id IS NULL
ORDER BY state, id LIMIT 1), '')`)
	if cancelled == "" {
		t.Fatal("the demo data has no failed or waiting row to cancel")
	}

	tab := browsertest.NewTab(t, 3*time.Minute)
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(tab.Ctx, steps...); err != nil {
			t.Fatalf("browser: %v", err)
		}
	}
	do(browsertest.Login(d.base, "support@regdesk.test", "demo-support-password"))

	// Check now on the uncertain row: the LMS makes it due, the stand-in polls Sisu, and a reload
	// within a minute shows it registered.
	do(
		chromedp.Navigate(d.base+"/registrations/"+uncertain),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"][data-state="submission_uncertain"]`)),
	)
	act(t, tab.Ctx, "check_now", "Sisu shows the course unit attainment")
	waitFor(t, tab.Ctx, `(document.querySelector('[data-testid="flash"]') || {}).textContent?.includes('The pipeline will check this registration at once')`)
	if got := d.auditActor(t, "transition_item", uncertain); got != "Sami Support" {
		t.Errorf("the LMS's audit of Check now names %q, want Sami Support", got)
	}
	start := time.Now()
	for {
		do(chromedp.Navigate(d.base + "/registrations/" + uncertain))
		state, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="registration"]').dataset.state`))
		if err != nil {
			t.Fatal(err)
		}
		// Without a submitted attainment id the LMS's recovery finds the credit among what Sisu
		// holds and records it as duplicate: registered, by this submission or not.
		if state == "registered" || state == "duplicate" {
			t.Logf("%s %s after Check now", state, time.Since(start).Round(time.Second))
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("a minute after Check now the row is %s, want registered", state)
		}
		time.Sleep(2 * time.Second)
	}

	// A state move: cancel a row; the page shows it cancelled.
	do(
		chromedp.Navigate(d.base+"/registrations/"+cancelled),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-cancel"][data-allowed="true"]`)),
	)
	act(t, tab.Ctx, "cancel", "The student asked us to withdraw it")
	do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"][data-state="cancelled"]`)))
	if got := d.auditActor(t, "transition_item", cancelled); got != "Sami Support" {
		t.Errorf("the LMS's audit of the cancel names %q, want Sami Support", got)
	}

	// A resubmit: the stand-in sends the row's payload to the fake Suotar again, and the page
	// shows within a minute what became of it (sent and awaiting verification or registered, or
	// refused by Sisu, as the import phase records a refusal).
	resubmit := d.one(t, `SELECT coalesce((SELECT id::text FROM credit_registrations
WHERE state IN ('misregistered', 'failed_retryable') AND deleted_at IS NULL AND superseded_by_id IS NULL
  AND student_number IS NOT NULL AND uh_course_code IS NOT NULL AND selected_enrolment_id IS NOT NULL
  AND grade_scale_id IS NOT NULL AND grade_id IS NOT NULL AND credits IS NOT NULL
ORDER BY state, id LIMIT 1), '')`)
	if resubmit == "" {
		t.Fatal("the demo data has no misregistered or retryable row with its payload to resubmit")
	}
	do(
		chromedp.Navigate(d.base+"/registrations/"+resubmit),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="action-resubmit"][data-allowed="true"]`)),
	)
	act(t, tab.Ctx, "resubmit", "Sisu voided the old attainment; send it again")
	waitFor(t, tab.Ctx, `(document.querySelector('[data-testid="flash"]') || {}).textContent`)
	if got := d.auditActor(t, "transition_item", resubmit); got != "Sami Support" {
		t.Errorf("the LMS's audit of the resubmit names %q, want Sami Support", got)
	}
	for start := time.Now(); ; time.Sleep(2 * time.Second) {
		do(chromedp.Navigate(d.base + "/registrations/" + resubmit))
		state, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="registration"]').dataset.state`))
		if err != nil {
			t.Fatal(err)
		}
		// Out of ready_to_submit: sent (and perhaps verified already), or refused by Sisu in words.
		if state != "ready_to_submit" {
			t.Logf("resubmitted: %s %s later", state, time.Since(start).Round(time.Second))
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("a minute after the resubmit the row is %s, want sent again; its events: %s", state,
				d.one(t, `SELECT string_agg(kind || ' ' || coalesce(to_state::text, '') || ' ' || coalesce(message, ''), '; ' ORDER BY created_at)
FROM credit_registration_events WHERE credit_registration_id = $1`, resubmit))
		}
	}

	// Bulk: Check now on every row awaiting verification, from the queue to the result. The
	// stand-in may settle a row between the preview and the apply; every row previewed has an
	// outcome in words all the same.
	do(
		chromedp.Navigate(d.base+"/?show=all&state=awaiting_verification"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-select-all"]`)),
	)
	previewed, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="bulk-select-all"]').textContent.match(/\d+/)[0]`))
	if err != nil {
		t.Fatal(err)
	}
	do(
		chromedp.SetValue(chromedp.CSS(`#bulk-form [data-testid="bulk-action"]`), "check_now"),
		chromedp.Click(chromedp.CSS(`[data-testid="bulk-select-all"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-apply-form"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="bulk-reason"]`), "Suotar is back; look again"),
		chromedp.Click(chromedp.CSS(`[data-testid="bulk-apply"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bulk-result"]`)),
	)
	counted, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[string](`String([...document.querySelectorAll('[data-testid="bulk-result"] [data-count]')].reduce((n, e) => n + Number(e.dataset.count), 0))`))
	if err != nil {
		t.Fatal(err)
	}
	applied, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[string](`(document.querySelector('[data-testid="bulk-count-applied"]') || {dataset: {}}).dataset.count || ''`))
	if err != nil {
		t.Fatal(err)
	}
	if counted != previewed || applied == "" || applied == "0" {
		t.Errorf("the bulk result counts %s rows, %s applied; want the %s previewed, most applied", counted, applied, previewed)
	}
	raw, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid^="bulk-count-"], [data-testid="bulk-outcome"]')].map(e => e.firstChild ? e.firstChild.textContent.trim() : '').filter(t => /^[a-z]+(_[a-z]+)+$/.test(t)).join(', ')`))
	if err != nil {
		t.Fatal(err)
	}
	if raw != "" {
		t.Errorf("the bulk result shows raw codes instead of words: %s", raw)
	}
	if got := d.auditActor(t, "transition_item", ""); got != "Sami Support" {
		t.Errorf("the LMS's audit of the bulk Check now names %q, want Sami Support", got)
	}

	// A phase pause, as the admin: the System page shows the verify phase paused by her.
	admin := browsertest.NewTab(t, time.Minute)
	if err := chromedp.Do(admin.Ctx,
		browsertest.Login(d.base, "admin@regdesk.test", "demo-admin-password"),
		chromedp.Navigate(d.base+"/system"),
		chromedp.Click(chromedp.CSS(`[data-testid="phase"][data-phase="verify"] [data-testid="control-pause"] [data-testid="control-open"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="phase"][data-phase="verify"] [data-testid="control-pause"] [data-testid="control-reason"]`), "Suotar maintenance tonight"),
		chromedp.Click(chromedp.CSS(`[data-testid="phase"][data-phase="verify"] [data-testid="control-pause"] [data-testid="control-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="phase"][data-phase="verify"][data-status="paused"]`)),
	); err != nil {
		t.Fatalf("browser: %v", err)
	}
	pausedBy, err := chromedp.Run(admin.Ctx, chromedp.Text(chromedp.CSS(`[data-testid="phase"][data-phase="verify"] [data-testid="phase-paused-by"]`)))
	if err != nil {
		t.Fatal(err)
	}
	// The page names the person who paused it; to her, "you".
	if !strings.Contains(pausedBy, "Paused by you") {
		t.Errorf("the System page says the verify phase was %q, want paused by you", pausedBy)
	}
	if got := d.auditActor(t, "pause_phase", "verify"); got != "Aino Admin" {
		t.Errorf("the LMS's audit of the pause names %q, want Aino Admin", got)
	}
}
