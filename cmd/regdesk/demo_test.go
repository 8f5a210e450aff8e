package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"regdesk/partner/smtp/smtptest"
	"regdesk/store/storetest"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// ownerURL is a test database's URL without storetest's role: its sessions act as the test
// server's administrator, who owns the LMS's tables, as make run's do.
func ownerURL(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Del("role")
	u.RawQuery = q.Encode()
	return u.String()
}

// lockedBuffer is a writer the demo's goroutines and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestDemoMailsSupportADigestWithinAMinute runs make run's demo on a fresh database: Mailpit
// starts beside the fake Suotar, the demo data makes alerts fire, and within a minute the demo's
// support account has a daily digest in Mailpit whose links point at the demo's own address.
func TestDemoMailsSupportADigestWithinAMinute(t *testing.T) {
	t.Parallel()
	_, dbURL := storetest.NewWithURL(t, storetest.Options{})
	addr, mailAddr := freeAddr(t), freeAddr(t)
	env := map[string]string{
		// The demo writes the LMS's tables, so it connects as their owner, as make run does.
		"DATABASE_URL":             ownerURL(t, dbURL),
		"REGDESK_ADDR":             addr,
		"REGDESK_DEMO_SUOTAR_ADDR": freeAddr(t),
		"REGDESK_DEMO_SMTP_ADDR":   freeAddr(t),
		"REGDESK_DEMO_MAIL_ADDR":   mailAddr,
		"REGDESK_DEMO_MAILPIT":     smtptest.MailpitBinary(t),
		"REGDESK_PGDATA":           t.TempDir(),
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"demo", "-rows", "300"}, func(k string) string { return env[k] }, &out, &errOut)
	}()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the demo did not stop within 30 s of being told to")
		}
	}()

	type message struct {
		To      []struct{ Address string }
		Subject string
		ID      string
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var list struct{ Messages []message }
		if resp, err := http.Get("http://" + mailAddr + "/api/v1/messages"); err == nil {
			_ = json.NewDecoder(resp.Body).Decode(&list)
			resp.Body.Close()
		}
		for _, m := range list.Messages {
			if len(m.To) == 1 && m.To[0].Address == "support@regdesk.test" && strings.Contains(m.Subject, "Daily digest") {
				resp, err := http.Get("http://" + mailAddr + "/api/v1/message/" + m.ID)
				if err != nil {
					t.Fatal(err)
				}
				var full struct{ Text string }
				_ = json.NewDecoder(resp.Body).Decode(&full)
				resp.Body.Close()
				if !strings.Contains(full.Text, "http://"+addr+"/") || !strings.Contains(full.Text, "alerted_at=") {
					t.Errorf("the digest's links do not point at the demo (%s) with alerted_at:\n%s", addr, full.Text)
				}
				if !strings.Contains(out.String(), "http://"+mailAddr+"/") {
					t.Errorf("the demo does not say where to read its mails:\n%s", out.String())
				}
				return
			}
		}
		select {
		case err := <-done:
			t.Fatalf("the demo stopped: %v\n%s\n%s", err, out.String(), errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no digest to support@regdesk.test within a minute; Mailpit holds %d mails\n%s\n%s", len(list.Messages), out.String(), errOut.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
}
