// Package i18n gives every page and message its words in Finnish, Swedish or English: the
// message catalogue (locales/*.json, one file per language), plural rules, and the way each
// language writes dates, times, durations and numbers, always in Helsinki time.
//
// A request's Localizer travels in its context (With, From); templ components call T(ctx, key,
// ...) and handlers From(ctx).T(key, ...). A message is a whole sentence with named placeholders
// ({{.Name}}), so each language orders its words its own way; no sentence is ever built by
// joining translated fragments. The terms come from GLOSSARY.md.
package i18n

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// Lang is one of the languages regdesk speaks, as a BCP 47 tag: what <html lang> says.
type Lang string

// The languages: the University of Helsinki's three.
const (
	EN Lang = "en"
	FI Lang = "fi"
	SV Lang = "sv"
)

// Langs are the languages in the order the header's switch offers them.
var Langs = []Lang{FI, SV, EN}

// Default is the language of a person whose account and browser name none of regdesk's.
const Default = EN

// Parse returns the language a form value or stored column names, and false for anything else.
func Parse(s string) (Lang, bool) {
	switch l := Lang(s); l {
	case EN, FI, SV:
		return l, true
	}
	return "", false
}

// Name is the language's name in itself, as the switch shows it: "suomi", "svenska", "English".
func (l Lang) Name() string {
	switch l {
	case FI:
		return "suomi"
	case SV:
		return "svenska"
	}
	return "English"
}

// matcher picks among the three for an Accept-Language header; English first, so it wins ties
// and is what an unknown language gets.
var matcher = language.NewMatcher([]language.Tag{language.English, language.Finnish, language.Swedish})

// Negotiate picks the language for an Accept-Language header: the best of the three the browser
// accepts, else English.
func Negotiate(acceptLanguage string) Lang {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return Default
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return Default
	}
	return []Lang{EN, FI, SV}[i]
}

//go:embed locales/*.json
var files embed.FS

// bundle holds the three catalogues, loaded once: a catalogue that does not parse is a build
// mistake the catalogue test catches, so loading panics.
var bundle = sync.OnceValue(func() *goi18n.Bundle {
	b := goi18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	for _, l := range []Lang{EN, FI, SV} {
		if _, err := b.LoadMessageFileFS(files, "locales/"+string(l)+".json"); err != nil {
			panic(fmt.Sprintf("i18n: catalogue %s: %v", l, err))
		}
	}
	return b
})

// Localizer speaks one language: its messages and its way of writing numbers and moments.
type Localizer struct {
	Lang Lang
	loc  *goi18n.Localizer
	// plain keeps the messages asked for without arguments (most of a page's words: headings,
	// labels, buttons), which depend on nothing but the key. go-i18n executes a template for each
	// message it localizes, and a queue page asks for several hundred.
	plain sync.Map // key → string
	// has keeps Has's answers: the catalogue does not change while the process runs, and Code
	// asks Has for every code it writes.
	has sync.Map // key → bool
	// filled keeps each message asked for with arguments as its text around the arguments
	// (fillKey → []piece), so a sentence with a count or a name is joined, not executed as a
	// template: every catalogue placeholder is a plain {{.Name}} (TestCataloguePlaceholdersArePlain).
	filled sync.Map
}

// fillKey names a message's form: the key, the argument names in order and whether the count
// takes the singular.
type fillKey struct {
	key, names string
	form       pluralForm
}

// pluralForm is the form a count chooses. In English, Finnish and Swedish alike a count takes
// the "one" form exactly when it is the integer 1, and "other" otherwise (CLDR: i = 1 and v = 0);
// TestFilledMessagesAgreeWithTemplates holds this to go-i18n's own choice.
type pluralForm uint8

const (
	noCount pluralForm = iota
	countOne
	countOther
)

// formOf is the plural form of a pluralOperand result.
func formOf(operand any) pluralForm {
	switch n := operand.(type) {
	case nil:
		return noCount
	case string:
		if n == "1" {
			return countOne
		}
		return countOther
	}
	if fmt.Sprint(operand) == "1" {
		return countOne
	}
	return countOther
}

// piece is a literal run of a filled message followed, when arg ≥ 0, by the value of the
// argument pair at that index.
type piece struct {
	text string
	arg  int
}

// argMark marks argument i while a message's form is learnt; no message holds it.
func argMark(i int) string { return "\x00arg" + strconv.Itoa(i) + "\x00" }

var localizers = sync.OnceValue(func() map[Lang]*Localizer {
	m := map[Lang]*Localizer{}
	for _, l := range []Lang{EN, FI, SV} {
		m[l] = &Localizer{Lang: l, loc: goi18n.NewLocalizer(bundle(), string(l))}
	}
	return m
})

// For returns the Localizer of l (English for anything regdesk does not speak).
func For(l Lang) *Localizer {
	if loc, ok := localizers()[l]; ok {
		return loc
	}
	return localizers()[Default]
}

type ctxKey struct{}

// With returns ctx carrying loc, for the components and handlers of one request.
func With(ctx context.Context, loc *Localizer) context.Context {
	return context.WithValue(ctx, ctxKey{}, loc)
}

// From returns the request's Localizer, or English when none was set (a component rendered
// outside a request, such as in a test).
func From(ctx context.Context) *Localizer {
	if loc, ok := ctx.Value(ctxKey{}).(*Localizer); ok {
		return loc
	}
	return For(Default)
}

// T translates key in the request's language; see Localizer.T.
func T(ctx context.Context, key string, args ...any) string { return From(ctx).T(key, args...) }

// Missing marks a key the catalogue lacks, on the page where it shows: the catalogue test and
// the page tests look for it.
func Missing(key string) string { return "⟦" + key + "⟧" }

// T returns the message key with its placeholders filled from args, given as name–value pairs:
// T("queue.rows", "Count", n). A "Count" chooses the plural form. Integers and floats are written
// the language's way (1 234, 2,5); strings as they are. A key the catalogue lacks comes back as
// Missing(key) and is logged.
func (l *Localizer) T(key string, args ...any) string {
	if len(args) == 0 {
		if msg, ok := l.plain.Load(key); ok {
			return msg.(string)
		}
	}
	if len(args) == 0 {
		msg, ok := l.template(key, nil, nil)
		if ok {
			l.plain.Store(key, msg)
		}
		return msg
	}
	var names strings.Builder
	form := noCount
	for i := 0; i+1 < len(args); i += 2 {
		name, _ := args[i].(string)
		names.WriteString(name)
		names.WriteByte(0)
		if name == "Count" {
			form = formOf(pluralOperand(args[i+1]))
		}
	}
	fk := fillKey{key: key, names: names.String(), form: form}
	pieces, ok := l.filled.Load(fk)
	if !ok {
		p, learnt := l.learn(key, args, form)
		if !learnt {
			return Missing(key)
		}
		pieces, _ = l.filled.LoadOrStore(fk, p)
	}
	var out strings.Builder
	for _, pc := range pieces.([]piece) {
		out.WriteString(pc.text)
		if pc.arg >= 0 {
			fmt.Fprint(&out, l.value(args[pc.arg+1]))
		}
	}
	return out.String()
}

// template localizes key through go-i18n with data, choosing the form by count; ok is false (and
// the result Missing) when l's language lacks it.
func (l *Localizer) template(key string, data map[string]any, count any) (string, bool) {
	cfg := &goi18n.LocalizeConfig{MessageID: key, TemplateData: data, PluralCount: count}
	msg, tag, err := l.loc.LocalizeWithTag(cfg)
	if err != nil || tag.String() != string(l.Lang) {
		slog.Warn("i18n: message missing or broken", "key", key, "lang", l.Lang, "err", err)
		return Missing(key), false
	}
	return msg, true
}

// learn translates key once with a mark for each argument and a count of the form's own (1 or
// 2), and cuts the result at the marks: the message's pieces for T to join.
func (l *Localizer) learn(key string, args []any, form pluralForm) ([]piece, bool) {
	data := make(map[string]any, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		name, _ := args[i].(string)
		data[name] = argMark(i)
	}
	var count any
	switch form {
	case countOne:
		count = 1
	case countOther:
		count = 2
	}
	msg, ok := l.template(key, data, count)
	if !ok {
		return nil, false
	}
	var pieces []piece
	for {
		start := strings.Index(msg, "\x00arg")
		if start < 0 {
			break
		}
		end := strings.IndexByte(msg[start+1:], 0)
		i, err := strconv.Atoi(msg[start+len("\x00arg") : start+1+end])
		if end < 0 || err != nil {
			break
		}
		pieces = append(pieces, piece{text: msg[:start], arg: i})
		msg = msg[start+1+end+1:]
	}
	return append(pieces, piece{text: msg, arg: -1}), true
}

// Has reports whether the catalogue holds key in l's language.
func (l *Localizer) Has(key string) bool {
	if has, ok := l.has.Load(key); ok {
		return has.(bool)
	}
	_, tag, err := l.loc.LocalizeWithTag(&goi18n.LocalizeConfig{MessageID: key, PluralCount: 2})
	has := err == nil && tag.String() == string(l.Lang)
	l.has.Store(key, has)
	return has
}

// pluralOperand is what go-i18n chooses a plural form by: an integer, or a decimal as a string
// ("2.5", which is "other" in all three languages).
func pluralOperand(v any) any {
	switch n := v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return n
	case float64:
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", n), "0"), ".")
	case float32:
		return pluralOperand(float64(n))
	}
	return nil
}

// Name is an argument that is itself a catalogue entry: a name (a field's, a role's) quoted in a
// sentence, translated with it. A key the catalogue lacks shows as Fallback.
type Name struct {
	Key      string
	Fallback string
	// Args fill the entry's own placeholders, for a whole sentence quoted in another (a store
	// validation message followed by "Nothing changed.").
	Args []any
}

// value writes an argument the language's way.
func (l *Localizer) value(v any) any {
	switch n := v.(type) {
	case Name:
		if l.Has(n.Key) {
			return l.T(n.Key, n.Args...)
		}
		return n.Fallback
	case int:
		return l.Count(int64(n))
	case int32:
		return l.Count(int64(n))
	case int64:
		return l.Count(n)
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1e15 {
			return l.Count(int64(n))
		}
		return l.Decimal(n)
	}
	return v
}

// slotMark stands for a slot's value while its sentence is translated; no message holds it.
const slotMark = "\x00slot\x00"

// Slot translates key with the placeholder slot left open, and returns the sentence's text
// before and after it, so a page can put markup (a link, a <code>) in its place: one translated
// sentence, not fragments joined. Without the placeholder, the whole sentence is before.
func (l *Localizer) Slot(key, slot string, args ...any) (before, after string) {
	msg := l.T(key, append(args, slot, slotMark)...)
	before, after, _ = strings.Cut(msg, slotMark)
	return before, after
}

// SlotBefore and SlotAfter are Slot's halves for templ, which cannot take two results inline.
func SlotBefore(ctx context.Context, key, slot string, args ...any) string {
	b, _ := From(ctx).Slot(key, slot, args...)
	return b
}

// SlotAfter is the text after the slot; see SlotBefore.
func SlotAfter(ctx context.Context, key, slot string, args ...any) string {
	_, a := From(ctx).Slot(key, slot, args...)
	return a
}

// Code is the name of one of schedule's codes in the language: kind is its catalogue family
// ("phase", "reason", "state", "errorCode", "studentStatus", "waitsOn", ...). A code the catalogue
// does not know (a state added to the pipeline after this build) shows as itself.
func (l *Localizer) Code(kind, code string) string {
	if k := kind + "." + code; l.Has(k) {
		return l.T(k)
	}
	return code
}

// CodeExplain is the one-line explanation of a code, "" for a code the catalogue does not know.
func (l *Localizer) CodeExplain(kind, code string) string {
	if k := kind + "." + code + ".explain"; l.Has(k) {
		return l.T(k)
	}
	return ""
}

// ClientWords are the words the browser needs to keep a countdown counting in the page's
// language ("in 2 h 5 min", "2 t 5 min päästä"), as JSON for a <meta> the script reads: each a
// pattern with {s} for the span, {d} {h} {m} {x} for its numbers.
func (l *Localizer) ClientWords() string {
	words := map[string]string{
		"now": l.T("time.now"),
		"in":  l.T("time.in", "Span", "{s}"),
		"ago": l.T("time.ago", "Span", "{s}"),
		"dh":  l.T("span.dh", "D", "{d}", "H", "{h}"),
		"d":   l.T("span.d", "D", "{d}"),
		"hm":  l.T("span.hm", "H", "{h}", "M", "{m}"),
		"h":   l.T("span.h", "H", "{h}"),
		"m":   l.T("span.m", "M", "{m}"),
		"s":   l.T("span.s", "S", "{x}"),
	}
	b, _ := json.Marshal(words)
	return string(b)
}
