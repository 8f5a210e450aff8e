package web_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"regdesk/alerting"
)

// TestScreenshots draws docs/screenshots/*.png: the queue and a registration, in Finnish, at a
// laptop's 1280×900 and a phone's 390×844, on make run's demo data with its alerts firing. It
// runs only with REGDESK_SCREENSHOTS=1 (make screenshots), so make test never rewrites them.
func TestScreenshots(t *testing.T) {
	if os.Getenv("REGDESK_SCREENSHOTS") == "" {
		t.Skip("REGDESK_SCREENSHOTS is not set (make screenshots)")
	}
	bt := newTab(t)
	b, support := setupDemo(t)
	svc, err := alerting.New(alerting.Config{Store: b.store, Now: func() time.Time { return testNow }, BaseURL: b.server.URL + "/", From: "regdesk <regdesk@example.invalid>"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Evaluate(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bt.do(t, login(b.server.URL, support.Email, testPassword),
		chromedp.Click(chromedp.CSS(`[data-testid="language-fi"]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="fi"]`)))
	shot := func(name string) {
		png, err := chromedp.Run(bt.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, size := range []struct {
		name   string
		w, h   int64
		mobile bool
	}{{"desktop", 1280, 900, false}, {"phone", 390, 844, true}} {
		opts := []chromedp.EmulateViewportOption{}
		if size.mobile {
			opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
		}
		bt.do(t, chromedp.EmulateViewport(size.w, size.h, opts...),
			chromedp.Navigate(b.server.URL+"/"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration-row"]`)))
		shot("queue-" + size.name + ".png")
		id := bt.eval(t, `document.querySelector('[data-testid="registration-row"]').dataset.id`)
		bt.do(t, chromedp.Navigate(b.server.URL+"/registrations/"+id),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="registration"]`)))
		shot("registration-" + size.name + ".png")
	}
}
