// Package smtp is the mail server as a partner: a client that hands one message to an SMTP
// server with the standard library's net/smtp (STARTTLS, or TLS from the first byte, and PLAIN
// authentication only over TLS), and Message, a mail as it goes on the wire. Like every partner it
// imports nothing of regdesk's; smtptest beside it runs a real Mailpit for tests.
package smtp

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	netsmtp "net/smtp"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Config is a mail server: SMTP_URL and the password from the environment.
type Config struct {
	// URL is smtp://[user@]host[:port] (STARTTLS when the server offers it, and required when a
	// user is given) or smtps://[user@]host[:port] (TLS from the first byte).
	URL string
	// Password is the user's; never in the URL, which is logged.
	Password string
	// Timeout bounds one delivery, connection to QUIT (default 30 s).
	Timeout time.Duration
	// TLS overrides the TLS configuration (tests); nil verifies the server's certificate.
	TLS *tls.Config
}

// ParseURL checks an SMTP_URL and says what is wrong with it in words.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("SMTP_URL is not a URL: %w", err)
	}
	if u.Scheme != "smtp" && u.Scheme != "smtps" {
		return nil, fmt.Errorf("SMTP_URL must start smtp:// or smtps://, not %q", u.Scheme+"://")
	}
	if u.Hostname() == "" {
		return nil, errors.New("SMTP_URL names no host")
	}
	if _, ok := u.User.Password(); ok {
		return nil, errors.New("SMTP_URL must not carry a password: set SMTP_PASSWORD in the environment")
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return nil, errors.New("SMTP_URL takes no path or query")
	}
	return u, nil
}

// Client delivers through one mail server with the standard library's client.
type Client struct {
	u   *url.URL
	cfg Config
}

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	u, err := ParseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &Client{u: u, cfg: cfg}, nil
}

// Redacted is the server's URL as logs and pages may show it.
func (s *Client) Redacted() string { return s.u.Redacted() }

// Send delivers msg from from to to.
func (s *Client) Send(ctx context.Context, from, to string, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	host := s.u.Hostname()
	port := s.u.Port()
	if port == "" {
		port = map[string]string{"smtp": "587", "smtps": "465"}[s.u.Scheme]
	}
	addr := net.JoinHostPort(host, port)
	tlsCfg := s.cfg.TLS
	if tlsCfg == nil {
		tlsCfg = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	}
	var conn net.Conn
	var err error
	if s.u.Scheme == "smtps" {
		conn, err = (&tls.Dialer{Config: tlsCfg}).DialContext(ctx, "tcp", addr)
	} else {
		conn, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return fmt.Errorf("connect to %s: %w", addr, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	c, err := netsmtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("greeting of %s: %w", addr, err)
	}
	defer c.Close()
	if err := c.Hello("regdesk"); err != nil {
		return fmt.Errorf("EHLO: %w", err)
	}
	user := s.u.User.Username()
	if s.u.Scheme == "smtp" {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(tlsCfg); err != nil {
				return fmt.Errorf("STARTTLS: %w", err)
			}
		} else if user != "" {
			// A password must never cross the network in the clear.
			return fmt.Errorf("%s offers no STARTTLS, and a user is configured", addr)
		}
	}
	if user != "" {
		if err := c.Auth(netsmtp.PlainAuth("", user, s.cfg.Password, host)); err != nil {
			return fmt.Errorf("AUTH: %w", err)
		}
	}
	if err := c.Mail(from); err != nil {
		return fmt.Errorf("MAIL FROM: %w", err)
	}
	if err := c.Rcpt(to); err != nil {
		return fmt.Errorf("RCPT TO: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("end of DATA: %w", err)
	}
	return c.Quit()
}

// Message is a mail as it goes on the wire.
type Message struct {
	From, To  string
	MessageID string
	Date      time.Time
	Subject   string
	Text      string
	HTML      string
	Headers   map[string]string
}

// Bytes writes m as multipart/alternative, text first and HTML second, each quoted-printable.
func (m Message) Bytes() ([]byte, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	from, err := mail.ParseAddress(m.From)
	if err != nil {
		return nil, fmt.Errorf("MAIL_FROM %q: %w", m.From, err)
	}
	h.Set("From", from.String())
	h.Set("To", (&mail.Address{Address: m.To}).String())
	h.Set("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	h.Set("Date", m.Date.Format(time.RFC1123Z))
	h.Set("Message-ID", m.MessageID)
	h.Set("MIME-Version", "1.0")
	h.Set("Content-Type", "multipart/alternative; boundary="+mw.Boundary())
	keys := make([]string, 0, len(m.Headers))
	for k := range m.Headers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		h.Set(k, m.Headers[k])
	}
	var head bytes.Buffer
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		for _, v := range h[k] {
			fmt.Fprintf(&head, "%s: %s\r\n", k, strings.ReplaceAll(strings.ReplaceAll(v, "\r", ""), "\n", ""))
		}
	}
	head.WriteString("\r\n")
	for _, part := range []struct{ typ, body string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		pw, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {part.typ + "; charset=utf-8"},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, err
		}
		qp := quotedprintable.NewWriter(pw)
		if _, err := qp.Write([]byte(strings.ReplaceAll(part.body, "\n", "\r\n"))); err != nil {
			return nil, err
		}
		if err := qp.Close(); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	return append(head.Bytes(), b.Bytes()...), nil
}
