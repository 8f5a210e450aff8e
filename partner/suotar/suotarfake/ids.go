package suotarfake

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"regdesk/schedule"
)

// namespace makes the fake's derived ids its own: the SHA-1 of a fixed phrase, as a UUID
// namespace would be.
var namespace = sha1.Sum([]byte("regdesk suotarfake namespace"))

// DeriveUUID returns a name-based UUID in the version-5 layout (SHA-1 of a namespace and the
// parts), so the same inputs always name the same thing and tests can assert on ids the fake
// makes up.
func DeriveUUID(parts ...string) string {
	h := sha1.New()
	h.Write(namespace[:16])
	h.Write([]byte(strings.Join(parts, "\x00")))
	var b [16]byte
	copy(b[:], h.Sum(nil))
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails on supported platforms
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// deriveDigits returns n decimal digits derived from the parts, for Sisu's numeric ids.
func deriveDigits(n int, parts ...string) string {
	sum := sha1.Sum([]byte(strings.Join(parts, "\x00")))
	v := binary.BigEndian.Uint64(sum[:8])
	s := fmt.Sprintf("%020d", v)
	return "1" + s[len(s)-n+1:]
}

// unitFloat returns a number in [0, 1) derived from the parts.
func unitFloat(parts ...string) float64 {
	sum := sha1.Sum([]byte(strings.Join(parts, "\x00")))
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
}

// Bounds of the default delay from submission to course unit attainment: seed/backoff.rs says
// registrations land "between about 5 and 29 hours after the submission, most of them in the
// first half".
const (
	cuDelayMin  = 5 * time.Hour
	cuDelaySpan = 24 * time.Hour
)

// DefaultCUDelay is the delay the fake gives a submission's course unit attainment when none is
// set: between 5 and 29 hours, drawn from the submission id so it is the same on every run. The
// draw is squared, which puts about 71% of submissions in the first half of the window.
func DefaultCUDelay(submissionID string) time.Duration {
	u := unitFloat("cu-delay", submissionID)
	return cuDelayMin + time.Duration(u*u*float64(cuDelaySpan)).Round(time.Second)
}

// parseDate reads "YYYY-MM-DD" as midnight UTC, the form every date comparison here uses.
func parseDate(s string) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("date %q is not YYYY-MM-DD", s)
	}
	return t, nil
}

// helsinkiDay returns the Helsinki calendar day of t as midnight UTC.
func helsinkiDay(t time.Time) time.Time {
	y, m, d := t.In(schedule.Helsinki()).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// utcDay returns the UTC calendar day of t, the day Sisu dates by.
func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func formatDate(t time.Time) string { return t.Format(time.DateOnly) }

// grade is one grade of a grade scale.
type grade struct {
	localID string
	passed  bool
	// numeric is the numericCorrespondence; -1 when the scale has none (pass/fail).
	numeric int
}

// Grade scale ids. The LMS also sends sis-hyv-hyl for the pass/fail scale; Suotar has not
// confirmed the spelling, so the fake takes both as one family.
const (
	ScaleZeroToFive  = "sis-0-5"
	ScalePassFail    = "sis-hyl-hyv"
	scalePassFailLMS = "sis-hyv-hyl"
)

var gradeScales = map[string][]grade{
	ScaleZeroToFive: {
		{localID: "0", passed: false, numeric: 0},
		{localID: "1", passed: true, numeric: 1},
		{localID: "2", passed: true, numeric: 2},
		{localID: "3", passed: true, numeric: 3},
		{localID: "4", passed: true, numeric: 4},
		{localID: "5", passed: true, numeric: 5},
	},
	ScalePassFail: {
		{localID: "0", passed: false, numeric: -1},
		{localID: "1", passed: true, numeric: -1},
	},
}

// scaleFamily maps both spellings of the pass/fail scale to one id.
func scaleFamily(id string) string {
	if id == scalePassFailLMS {
		return ScalePassFail
	}
	return id
}

// gradeOn returns the grade with that localId on the scale; false for an unknown scale, which
// the fake, like Suotar, cannot grade against.
func gradeOn(scaleID, localID string) (grade, bool) {
	for _, g := range gradeScales[scaleFamily(scaleID)] {
		if g.localID == localID {
			return g, true
		}
	}
	return grade{}, false
}
