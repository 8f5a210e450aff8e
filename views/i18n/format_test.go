package i18n_test

import (
	"testing"
	"time"

	"regdesk/views/i18n"
)

func TestMomentsInEachLanguage(t *testing.T) {
	t.Parallel()
	// 18:54 UTC on Tuesday 1 December 2026 is 20:54 in Helsinki (winter time, UTC+2).
	at := time.Date(2026, 12, 1, 18, 54, 0, 0, time.UTC)
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	fi, sv, en := i18n.For(i18n.FI), i18n.For(i18n.SV), i18n.For(i18n.EN)
	for _, c := range []struct{ got, want string }{
		{fi.Abs(at, now), "ti 1.12. klo 20.54"},
		{sv.Abs(at, now), "tis 1 dec. kl. 20.54"},
		{en.Abs(at, now), "Tue 1 Dec 20:54"},
		{fi.Abs(at, now.AddDate(1, 0, 0)), "ti 1.12.2026 klo 20.54"},
		{sv.Abs(at, now.AddDate(1, 0, 0)), "tis 1 dec. 2026 kl. 20.54"},
		{en.Abs(at, now.AddDate(1, 0, 0)), "Tue 1 Dec 2026 20:54"},
		{fi.At(at, at.Add(-time.Hour)), "klo 20.54"},
		{fi.At(at, at.Add(-24*time.Hour)), "huomenna klo 20.54"},
		{sv.At(at, at.Add(-24*time.Hour)), "i morgon kl. 20.54"},
		{en.At(at, at.Add(-24*time.Hour)), "20:54 tomorrow"},
		{sv.At(at, at.Add(24*time.Hour)), "i går kl. 20.54"},
		{fi.At(at, now), "ti 1.12. klo 20.54"},
		{en.At(at, now), "20:54 on Tue 1 Dec"},
		{en.AtDated(at, at), "20:54 on Tue 1 Dec"},
		{fi.Date(at), "1.12.2026"},
		{sv.Date(at), "1 dec. 2026"},
		{en.Date(at), "1 Dec 2026"},
		{fi.Clock(at), "20.54"},
		{en.Clock(at), "20:54"},
		{fi.Relative(at, at.Add(-(2*time.Hour + 5*time.Minute))), "2 t 5 min päästä"},
		{sv.Relative(at, at.Add(-(2*time.Hour + 5*time.Minute))), "om 2 h 5 min"},
		{en.Relative(at, at.Add(3*24*time.Hour+4*time.Hour)), "3 d 4 h ago"},
		{fi.Relative(at, at.Add(3*24*time.Hour+4*time.Hour)), "3 pv 4 t sitten"},
		{sv.Relative(at, at.Add(3*24*time.Hour)), "för 3 d sedan"},
		{fi.Relative(at, at.Add(10*time.Second)), "nyt"},
		{en.Relative(at, at.Add(476*24*time.Hour+8*time.Hour)), "Tue 1 Dec 2026"},
		{fi.Relative(at, at.Add(7*24*time.Hour)), "ti 1.12."},
		{sv.Relative(at, at.Add(-8*24*time.Hour)), "tis 1 dec."},
		{i18n.Stamp(at), "2026-12-01 20:54"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	// Summer time: 17:54 UTC on 1 July is 20:54 in Helsinki (UTC+3).
	summer := time.Date(2027, 7, 1, 17, 54, 0, 0, time.UTC)
	if got := fi.Abs(summer, summer); got != "to 1.7. klo 20.54" {
		t.Errorf("summer: got %q", got)
	}
}

func TestNumbersInEachLanguage(t *testing.T) {
	t.Parallel()
	fi, en := i18n.For(i18n.FI), i18n.For(i18n.EN)
	half := 2.5
	var single float32 = 2.5
	for _, c := range []struct{ got, want string }{
		{fi.Count(1234567), "1\u202f234\u202f567"},
		{en.Count(-1234), "-1\u202f234"},
		{en.Count(999), "999"},
		{i18n.Credits(fi, &half), "2,5"},
		{i18n.Credits(en, &half), "2.5"},
		{i18n.Credits(fi, &single), "2,5"},
		{i18n.Credits[float64](fi, nil), "—"},
		{fi.Decimal(0.25), "0,25"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestNegotiate(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]i18n.Lang{
		"":                             i18n.EN,
		"fi-FI,fi;q=0.9,en;q=0.8":      i18n.FI,
		"sv-FI,sv;q=0.9":               i18n.SV,
		"de-DE,de;q=0.9":               i18n.EN,
		"de-DE,sv;q=0.5":               i18n.SV,
		"en-GB,fi;q=0.5":               i18n.EN,
		"*":                            i18n.EN,
		"garbage;;;q=x":                i18n.EN,
		"fi;q=0.2, sv;q=0.9, en;q=0.1": i18n.SV,
	} {
		if got := i18n.Negotiate(header); got != want {
			t.Errorf("Negotiate(%q) = %s, want %s", header, got, want)
		}
	}
}

func TestPluralsAndMissingKeys(t *testing.T) {
	t.Parallel()
	en := i18n.For(i18n.EN)
	if got := en.T("no.such.key"); got != i18n.Missing("no.such.key") {
		t.Errorf("a missing key gave %q", got)
	}
	if got := en.T("span.d", "D", 12345); got != "12\u202f345 d" {
		t.Errorf("a number placeholder gave %q", got)
	}
}

// A message asked for without arguments is kept after its first use: it reads the same the
// second time as the catalogue has it, and keeping it never keeps a message that has arguments.
func TestPlainMessagesAreKeptAsTheCatalogueHasThem(t *testing.T) {
	t.Parallel()
	for _, lang := range []i18n.Lang{i18n.EN, i18n.FI, i18n.SV} {
		loc := i18n.For(lang)
		for key, forms := range loadCatalogue(t, string(lang)) {
			if len(forms) != 1 || len(placeholders(forms)) > 0 {
				continue
			}
			first, second := loc.T(key), loc.T(key)
			if first != forms["other"] || second != first {
				t.Errorf("%s %q: %q, then %q; the catalogue has %q", lang, key, first, second, forms["other"])
			}
		}
	}
	en := i18n.For(i18n.EN)
	_ = en.T("span.d")
	if got := en.T("span.d", "D", 3); got != "3 d" {
		t.Errorf("after a plain use, span.d with its argument gave %q", got)
	}
}
