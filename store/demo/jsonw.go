package demo

import (
	"strconv"
	"time"
)

// obj builds a JSON object by appending to a byte slice. encoding/json would reflect over a map
// or struct for each of the millions of event details; appending is several times faster and
// keeps the key order fixed, which determinism needs anyway.
type obj struct {
	b     []byte
	first bool
}

func newObj(b []byte) obj { return obj{b: append(b, '{'), first: true} }

func (o *obj) key(k string) {
	if !o.first {
		o.b = append(o.b, ',')
	}
	o.first = false
	o.b = appendJSONString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *obj) str(k, v string) {
	o.key(k)
	o.b = appendJSONString(o.b, v)
}

func (o *obj) num(k string, v float64) {
	o.key(k)
	o.b = strconv.AppendFloat(o.b, v, 'f', -1, 64)
}

func (o *obj) int(k string, v int) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
}

func (o *obj) instant(k string, t time.Time) {
	o.key(k)
	o.b = append(o.b, '"')
	o.b = t.UTC().AppendFormat(o.b, "2006-01-02T15:04:05.000Z")
	o.b = append(o.b, '"')
}

func (o *obj) date(k string, t time.Time) {
	o.key(k)
	o.b = append(o.b, '"')
	o.b = t.In(helsinki).AppendFormat(o.b, time.DateOnly)
	o.b = append(o.b, '"')
}

// open starts a nested object under k; close it with end.
func (o *obj) open(k string) obj {
	o.key(k)
	return obj{b: append(o.b, '{'), first: true}
}

// end closes the object and returns the bytes.
func (o *obj) end() []byte { return append(o.b, '}') }

// nested closes child and folds its bytes back into o.
func (o *obj) nested(child obj) { o.b = child.end() }

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
			clean = false
			break
		}
	}
	if clean { // ids, codes and dates: nearly every string
		b = append(b, s...)
		return append(b, '"')
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
