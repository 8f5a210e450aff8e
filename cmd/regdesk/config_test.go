package main

import (
	"flag"
	"io"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

func parseConfig(t *testing.T, env map[string]string) (config, error) {
	t.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cf := newConfigFlags(fs, func(k string) string { return env[k] })
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	return cf.validate()
}

func TestConfigSecurityDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig(t, map[string]string{"DATABASE_URL": "postgres://x/y"})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.SessionSecure || cfg.SessionIdle != 2*time.Hour || cfg.SessionLifetime != 12*time.Hour {
		t.Errorf("session defaults = secure %v, idle %s, lifetime %s; want secure, 2h, 12h", cfg.SessionSecure, cfg.SessionIdle, cfg.SessionLifetime)
	}
	if cfg.ProxyHeader != "" || len(cfg.ProxyTrusted) != 0 || len(cfg.TrustedOrigins) != 0 || len(cfg.TrustedProxies) != 0 {
		t.Errorf("single sign-on, trusted origins or proxies are on by default: %+v", cfg)
	}
}

func TestConfigSecuritySettings(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig(t, map[string]string{
		"DATABASE_URL":         "postgres://x/y",
		"SESSION_SECURE":       "0",
		"SESSION_IDLE_TIMEOUT": "30m",
		"SESSION_LIFETIME":     "8h",
		"TRUSTED_ORIGINS":      "https://portal.example.org, https://intra.example.org:8443",
		"TRUSTED_PROXIES":      "10.0.0.0/8",
		"AUTH_PROXY_HEADER":    "X-Remote-User",
		"AUTH_PROXY_TRUSTED":   "192.0.2.10,2001:db8::/32",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SessionSecure || cfg.SessionIdle != 30*time.Minute || cfg.SessionLifetime != 8*time.Hour {
		t.Errorf("session settings not read: %+v", cfg)
	}
	if !slices.Equal(cfg.TrustedOrigins, []string{"https://portal.example.org", "https://intra.example.org:8443"}) {
		t.Errorf("TrustedOrigins = %v", cfg.TrustedOrigins)
	}
	want := []netip.Prefix{netip.MustParsePrefix("192.0.2.10/32"), netip.MustParsePrefix("2001:db8::/32")}
	if cfg.ProxyHeader != "X-Remote-User" || !slices.Equal(cfg.ProxyTrusted, want) {
		t.Errorf("proxy = %q %v, want X-Remote-User %v", cfg.ProxyHeader, cfg.ProxyTrusted, want)
	}
}

func TestConfigReportsEverySecurityProblemAtOnce(t *testing.T) {
	t.Parallel()
	_, err := parseConfig(t, map[string]string{
		"DATABASE_URL":         "postgres://x/y",
		"SESSION_SECURE":       "maybe",
		"SESSION_IDLE_TIMEOUT": "13h",
		"TRUSTED_ORIGINS":      "portal.example.org",
		"TRUSTED_PROXIES":      "10.0.0.0/33",
		"AUTH_PROXY_HEADER":    "X Remote User",
	})
	if err == nil {
		t.Fatal("validate() accepted bad settings")
	}
	for _, want := range []string{"SESSION_SECURE", "SESSION_IDLE_TIMEOUT (13h0m0s) is longer than SESSION_LIFETIME", "TRUSTED_ORIGINS", "TRUSTED_PROXIES", "AUTH_PROXY_HEADER: \"X Remote User\""} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not report %s:\n%v", want, err)
		}
	}
	// A header without the proxy's addresses would let anyone sign in as anyone.
	_, err = parseConfig(t, map[string]string{"DATABASE_URL": "postgres://x/y", "AUTH_PROXY_HEADER": "X-Remote-User"})
	if err == nil || !strings.Contains(err.Error(), "AUTH_PROXY_TRUSTED is empty") {
		t.Errorf("AUTH_PROXY_HEADER without AUTH_PROXY_TRUSTED = %v, want refused", err)
	}
	_, err = parseConfig(t, map[string]string{"DATABASE_URL": "postgres://x/y", "AUTH_PROXY_TRUSTED": "10.0.0.1"})
	if err == nil || !strings.Contains(err.Error(), "AUTH_PROXY_HEADER is empty") {
		t.Errorf("AUTH_PROXY_TRUSTED without AUTH_PROXY_HEADER = %v, want refused", err)
	}
}

// The LMS's account_linking_since is off unless given, read as an instant in UTC when it is, and a
// value that is not an RFC 3339 time is refused with the setting's name.
func TestConfigAccountLinkingSince(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig(t, map[string]string{"DATABASE_URL": "postgres://x/y"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AccountLinkingSince != nil {
		t.Errorf("account linking is on by default, since %v", cfg.AccountLinkingSince)
	}
	cfg, err = parseConfig(t, map[string]string{"DATABASE_URL": "postgres://x/y", "LMS_ACCOUNT_LINKING_SINCE": " 2026-08-01T03:00:00+03:00 "})
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC); cfg.AccountLinkingSince == nil || !cfg.AccountLinkingSince.Equal(want) || cfg.AccountLinkingSince.Location() != time.UTC {
		t.Errorf("AccountLinkingSince = %v, want %v", cfg.AccountLinkingSince, want)
	}
	_, err = parseConfig(t, map[string]string{"DATABASE_URL": "postgres://x/y", "LMS_ACCOUNT_LINKING_SINCE": "1.8.2026"})
	if err == nil || !strings.Contains(err.Error(), `LMS_ACCOUNT_LINKING_SINCE: "1.8.2026" is not an RFC 3339 time`) {
		t.Errorf("LMS_ACCOUNT_LINKING_SINCE=1.8.2026: %v, want refused by name", err)
	}
}
