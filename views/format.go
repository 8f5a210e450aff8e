package views

import (
	"time"

	"regdesk/views/i18n"
)

// The English formatters, for text that is English whatever the reader's language. Pages write
// moments and numbers in the reader's language with the request's i18n.Localizer (When, At,
// AtDated, Clock, Date, Count) instead; these delegate to its English one, so both write English
// alike.

// When is a moment as a person reads it: relative to now, and absolute in Helsinki.
type When = i18n.When

var english = i18n.For(i18n.EN)

// NewWhen describes t as seen at now in English. A nil t gives the zero When (Set false).
func NewWhen(t *time.Time, now time.Time) When { return english.When(t, now) }

// Clock formats t as the Helsinki time of day, "14:32".
func Clock(t time.Time) string { return english.Clock(t) }

// Count formats n with thin-space thousands groups: 1 234 567.
func Count(n int64) string { return english.Count(n) }

// Credits writes a number of credits as Sisu and people write them in English, "5", "2.5"; "—"
// when it is not set.
func Credits[T float32 | float64](c *T) string { return i18n.Credits(english, c) }

// At says when t is, the way an English sentence reads it at now: "14:30" today, "14:30
// tomorrow", "14:30 yesterday", otherwise "14:30 on Thu 3 Dec".
func At(t, now time.Time) string { return english.At(t, now) }

// AtDated is At with the date always spelled out, "14:30 on Thu 3 Dec".
func AtDated(t, now time.Time) string { return english.AtDated(t, now) }

// Date formats t's Helsinki date, "3 Dec 2026".
func Date(t time.Time) string { return english.Date(t) }

// Stamp formats t as "2026-12-03 14:32" in Helsinki, in every language.
func Stamp(t time.Time) string { return i18n.Stamp(t) }

// ISO formats t in RFC 3339 in UTC, for <time datetime> and the browser's countdowns.
func ISO(t time.Time) string { return i18n.ISO(t) }
