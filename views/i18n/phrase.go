package i18n

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"regdesk/schedule"
)

// Say words one of schedule's phrases in l's language, its moments as seen at now: the phrase's
// own sentence with its values written the language's way, its parts worded first (a list of
// them as the language lists things). A key the catalogue does not know shows the phrase's
// English text.
func (l *Localizer) Say(p schedule.Phrase, now time.Time) string {
	if !l.Has(p.Key) {
		if p.Text != "" {
			return p.Text
		}
		return Missing(p.Key)
	}
	none := func() string { return l.T("why.none") }
	var args []any
	for k, v := range p.Args {
		if v == "" {
			v = none()
		}
		args = append(args, k, v)
	}
	for k, d := range p.Dates {
		v := none()
		if t, err := time.ParseInLocation(time.DateOnly, d, schedule.Helsinki()); err == nil {
			v = l.Date(t)
		}
		args = append(args, k, v)
	}
	for k, t := range p.Times {
		args = append(args, k, l.AtDated(t, now))
	}
	for k, s := range p.Spans {
		args = append(args, k, l.Span(time.Duration(s)*time.Second))
	}
	for k, parts := range p.Parts {
		words := make([]string, len(parts))
		for i, part := range parts {
			// A part is read inside another sentence: a sentence given as a part (why a call
			// failed) loses its full stop there.
			words[i] = strings.TrimSuffix(l.Say(part, now), ".")
		}
		args = append(args, k, l.List(words))
	}
	if p.Count != nil {
		args = append(args, "Count", *p.Count)
	}
	return l.T(p.Key, args...)
}

// Sentences words phrases that are each a sentence, each begun with a capital letter, one after
// the other.
func (l *Localizer) Sentences(ps []schedule.Phrase, now time.Time) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = upperFirst(l.Say(p, now))
	}
	return strings.Join(out, " ")
}

// upperFirst capitalises a sentence that begins with a part ("the verify call failed …"); one
// that begins with regdesk's name keeps it as it is written.
func upperFirst(s string) string {
	if strings.HasPrefix(s, "regdesk") {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
