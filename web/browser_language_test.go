package web_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"regdesk/store/storetest"
	"regdesk/views/i18n"
)

// dateShapes are how each language writes a moment in a table ("ti 1.12. klo 20.54") and in a
// message for the student, which always carries its date.
var dateShapes = map[i18n.Lang]struct{ table, message *regexp.Regexp }{
	i18n.FI: {regexp.MustCompile(`^(ma|ti|ke|to|pe|la|su) \d{1,2}\.\d{1,2}\.(\d{4})? klo \d{1,2}\.\d{2}$`),
		regexp.MustCompile(`Tarkistamme uudelleen (ma|ti|ke|to|pe|la|su) \d{1,2}\.\d{1,2}\.(\d{4})? klo \d{1,2}\.\d{2}\.`)},
	i18n.SV: {regexp.MustCompile(`^(mån|tis|ons|tors|fre|lör|sön) \d{1,2} (jan\.|feb\.|mars|apr\.|maj|juni|juli|aug\.|sep\.|okt\.|nov\.|dec\.)( \d{4})? kl\. \d{1,2}\.\d{2}$`),
		regexp.MustCompile(`Vi kontrollerar igen (mån|tis|ons|tors|fre|lör|sön) \d{1,2} \S+( \d{4})? kl\. \d{1,2}\.\d{2}\.`)},
	i18n.EN: {regexp.MustCompile(`^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2}( \d{4})? \d{1,2}:\d{2}$`),
		regexp.MustCompile(`We check again at \d{1,2}:\d{2} on (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2}( \d{4})?\.`)},
}

// TestBrowserEveryLanguage signs in, chooses each language with the header's switch and reads
// the queue, a registration page and a student page in it: the language's words, its way of
// writing dates, and the message copied for the student, in the language the switch beside the
// copy button names. The tab's console must stay free of errors and CSP reports throughout.
func TestBrowserEveryLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cai := storetest.AddStudent(t, b.store, storetest.Student{FirstName: "Cai", LastName: "Lindqvist", Email: "cai@example.invalid", StudentNumber: "015000003"})
	parked := storetest.AddRegistration(t, b.store, storetest.Registration{
		Student: cai, Course: b.course, State: "no_usable_enrolment", ErrorCode: "enrolment_not_found",
		StateChangedAt: testNow.Add(-2 * time.Hour), NextAttemptAt: testNow.Add(3 * time.Hour),
	})
	for _, lang := range []i18n.Lang{i18n.FI, i18n.SV, i18n.EN} {
		t.Run(string(lang), func(t *testing.T) {
			t.Parallel()
			loc := i18n.For(lang)
			bt := newTab(t)
			bt.grantClipboard(t, b.server.URL)
			// Each language is chosen by a person of its own, so the runs do not share an account.
			who := b.addAccount(t, "Kieli "+string(lang), "lang-"+string(lang)+"@example.invalid", "support")
			bt.do(t, login(b.server.URL, who.Email, testPassword))
			// The switch reloads the page; the marker tells the new page from the old.
			bt.eval(t, `document.body.dataset.marker = "before"; "ok"`)
			bt.do(t, chromedp.Click(chromedp.CSS(`[data-testid="language-`+string(lang)+`"]`)))
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				if bt.eval(t, `(document.readyState === "complete" && !document.body.dataset.marker && document.documentElement.lang) || ""`) == string(lang) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the page did not come back in %s after the switch", lang)
				}
			}
			if got := bt.eval(t, `document.querySelector('[data-testid="language-`+string(lang)+`"]').getAttribute("aria-pressed")`); got != "true" {
				t.Errorf("the switch does not mark %s as chosen", lang)
			}

			// The queue.
			bt.do(t, chromedp.Navigate(b.server.URL+"/?show=all"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="queue-table"]`)))
			if got := bt.text(t, "main h1"); got != loc.T("queue.title") {
				t.Errorf("queue heading = %q, want %q", got, loc.T("queue.title"))
			}
			if got := bt.text(t, `[data-testid="count-needs_admin"]`); got == "" {
				t.Errorf("no needs-admin count")
			}
			abs := bt.text(t, `[data-testid="registration-row"] td:last-child .abs`)
			if !dateShapes[lang].table.MatchString(abs) {
				t.Errorf("queue's last activity %q is not written the %s way", abs, lang)
			}

			// A registration page: its headings and the countdown, redrawn by the script in the
			// page's language.
			bt.do(t, chromedp.Navigate(b.server.URL+"/registrations/"+b.uncertainOverdue),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="actions"]`)))
			if got := bt.text(t, "#actions-title"); got != loc.T("act.title") {
				t.Errorf("actions heading = %q, want %q", got, loc.T("act.title"))
			}
			if got := bt.text(t, `[data-testid="lookup"] h2`); got != loc.T("lookup.heading") {
				t.Errorf("lookup heading = %q", got)
			}
			if abs := bt.text(t, `[data-testid="next-check"] .abs`); !dateShapes[lang].table.MatchString(abs) {
				t.Errorf("next check %q is not written the %s way", abs, lang)
			}
			bt.eval(t, `window.regdeskCountdownTick(); window.regdeskCountdownTick(); "ok"`)
			// The redrawn countdown is a moment later than the drawn one, in the same words.
			before, after := loc.Slot("time.in", "Span")
			if got := bt.text(t, `[data-testid="next-check"] .rel`); !strings.HasPrefix(got, strings.TrimSpace(before)) ||
				!strings.HasSuffix(got, strings.TrimSpace(after)) || !strings.ContainsAny(got, "0123456789") {
				t.Errorf("the countdown redrawn by the script reads %q, not %q…%q", got, before, after)
			}

			// A student page, and the message copied for the student: the row has no course
			// language, so the message starts in the reader's and names its date that way.
			card := `[data-testid="registration-card"][data-id="` + parked + `"]`
			bt.do(t, chromedp.Navigate(b.server.URL+"/students/"+cai.ID), chromedp.WaitVisible(chromedp.CSS(card+` [data-testid="copy-message"]`)))
			if got := bt.text(t, card+` [data-testid="waits-on"]`); got != loc.T("student.waitsOn", "Who", loc.Code("waitsOn", "student")) {
				t.Errorf("waits on = %q", got)
			}
			if got := bt.text(t, card+` [data-testid="copy-message"]`); got != loc.T("student.copy") {
				t.Errorf("copy button = %q, want %q", got, loc.T("student.copy"))
			}
			copied := bt.copyMessage(t, card)
			if !dateShapes[lang].message.MatchString(copied) {
				t.Errorf("the copied message does not name its date the %s way: %q", lang, copied)
			}
			if got := bt.text(t, card+` [data-testid="copy-status"]`); got != loc.T("copy.copied") {
				t.Errorf("copy status = %q, want %q", got, loc.T("copy.copied"))
			}
			// The switch beside the button copies the message in another language.
			other := i18n.SV
			if lang == i18n.SV {
				other = i18n.FI
			}
			bt.do(t, chromedp.SetValue(chromedp.CSS(card+` [data-testid="message-language"]`), string(other)))
			bt.eval(t, `document.querySelector('`+card+` [data-testid="message-language"]').dispatchEvent(new Event("change", {bubbles: true})); "ok"`)
			if copied := bt.copyMessage(t, card); !dateShapes[other].message.MatchString(copied) {
				t.Errorf("after switching to %s the copied message is %q", other, copied)
			}
			if got := bt.eval(t, `document.querySelector('main').innerText.includes("⟦") ? "missing" : "ok"`); got != "ok" {
				t.Errorf("the student page shows an untranslated key")
			}
		})
	}
}

// copyMessage clicks the card's copy button and returns the text the page wrote to the clipboard.
// The system clipboard is shared by every tab of the browser, and other tests copy in parallel, so
// the page's write is read where it is made.
func (bt *browserTest) copyMessage(t *testing.T, card string) string {
	t.Helper()
	bt.eval(t, `(function () {
		if (!window.__copyWatched) {
			var write = navigator.clipboard.writeText.bind(navigator.clipboard);
			navigator.clipboard.writeText = function (text) { window.__copied = text; return write(text); };
			window.__copyWatched = true;
		}
		window.__copied = "";
		delete document.querySelector('`+card+` [data-testid="copy-message"]').dataset.copied;
		return "ok";
	})()`)
	bt.do(t,
		chromedp.Click(chromedp.CSS(card+` [data-testid="copy-message"]`)),
		chromedp.WaitVisible(chromedp.CSS(card+` [data-testid="copy-message"][data-copied="clipboard"]`)),
	)
	return strings.TrimSpace(bt.eval(t, `window.__copied`))
}
