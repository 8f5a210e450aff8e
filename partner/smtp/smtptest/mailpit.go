// Package smtptest is the SMTP partner's test server: a real Mailpit on free loopback ports, sent
// to through its SMTP port and read back through its HTTP API.
package smtptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Mailpit is a real mail server for a test: Mailpit (make test installs it into bin/), on free
// loopback ports, with its messages in the test's temporary folder. Tests send through its SMTP
// port and read back through its HTTP API.
type Mailpit struct {
	// SMTPAddr is host:port of its SMTP server; API the base URL of its HTTP API.
	SMTPAddr string
	API      string
	bin, db  string
	httpAddr string
	cmd      *osexec.Cmd
}

// MailpitBinary finds Mailpit: on PATH, else in the module's bin/. Without it the test is
// skipped, except in CI (CI set), where it fails: a mail test that skips would pass silently.
func MailpitBinary(tb testing.TB) string {
	tb.Helper()
	if p, err := osexec.LookPath("mailpit"); err == nil {
		return p
	}
	dir, _ := os.Getwd()
	for dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "bin", "mailpit")
			if _, err := os.Stat(p); err == nil {
				return p
			}
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if os.Getenv("CI") != "" {
		tb.Fatal("mailpit is not installed, and CI is set: mail tests must run (make test installs it into bin/)")
	}
	tb.Skip("mailpit is not installed: make test installs it into bin/")
	return ""
}

func freePort(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// StartMailpit starts a Mailpit for the test and stops it when the test ends.
func StartMailpit(tb testing.TB) *Mailpit {
	tb.Helper()
	m := &Mailpit{bin: MailpitBinary(tb), db: filepath.Join(tb.TempDir(), "mailpit.db"),
		SMTPAddr: freePort(tb), httpAddr: freePort(tb)}
	m.API = "http://" + m.httpAddr
	m.Start(tb)
	tb.Cleanup(func() { m.Stop(tb) })
	return m
}

// Start starts the server again on the same ports and messages, after Stop.
func (m *Mailpit) Start(tb testing.TB) {
	tb.Helper()
	m.cmd = osexec.Command(m.bin, "--smtp", m.SMTPAddr, "--listen", m.httpAddr, "--database", m.db,
		"--quiet", "--disable-version-check", "--smtp-disable-rdns")
	if err := m.cmd.Start(); err != nil {
		tb.Fatalf("start mailpit: %v", err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(m.API + "/api/v1/messages")
		if err == nil {
			resp.Body.Close()
			if c, err := net.Dial("tcp", m.SMTPAddr); err == nil {
				c.Close()
				return
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("mailpit did not answer on %s and %s", m.SMTPAddr, m.httpAddr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the server: its SMTP port refuses connections until Start.
func (m *Mailpit) Stop(tb testing.TB) {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	_ = m.cmd.Process.Kill()
	_ = m.cmd.Wait()
	m.cmd = nil
}

// MailpitAddress is a sender or recipient as Mailpit's API gives it.
type MailpitAddress struct {
	Name    string `json:"Name"`
	Address string `json:"Address"`
}

// MailpitMessage is one message read back from Mailpit.
type MailpitMessage struct {
	ID        string           `json:"ID"`
	MessageID string           `json:"MessageID"`
	From      MailpitAddress   `json:"From"`
	To        []MailpitAddress `json:"To"`
	Subject   string           `json:"Subject"`
	Text      string           `json:"Text"`
	HTML      string           `json:"HTML"`
	// Headers are the message's headers (only from Message).
	Headers map[string][]string `json:"-"`
}

func (m *Mailpit) getJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, m.API+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("mailpit %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("mailpit %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		tb.Fatalf("mailpit %s: %v", path, err)
	}
}

// Messages lists every message Mailpit holds, newest first (without bodies).
func (m *Mailpit) Messages(tb testing.TB) []MailpitMessage {
	tb.Helper()
	var list struct {
		Messages []MailpitMessage `json:"messages"`
	}
	m.getJSON(tb, "/api/v1/messages?limit=1000", &list)
	return list.Messages
}

// Message reads one message in full: bodies and headers.
func (m *Mailpit) Message(tb testing.TB, id string) MailpitMessage {
	tb.Helper()
	var msg MailpitMessage
	m.getJSON(tb, "/api/v1/message/"+id, &msg)
	m.getJSON(tb, "/api/v1/message/"+id+"/headers", &msg.Headers)
	return msg
}

// WaitMessages waits until Mailpit holds at least n messages, and returns them.
func (m *Mailpit) WaitMessages(tb testing.TB, n int) []MailpitMessage {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		list := m.Messages(tb)
		if len(list) >= n || time.Now().After(deadline) {
			if len(list) < n {
				tb.Fatalf("mailpit holds %d messages, want %d", len(list), n)
			}
			return list
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// String names the server for logs.
func (m *Mailpit) String() string { return fmt.Sprintf("mailpit smtp %s api %s", m.SMTPAddr, m.API) }
