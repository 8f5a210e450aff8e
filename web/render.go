package web

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/a-h/templ"

	"regdesk/views/i18n"
)

// wantsFragment reports whether htmx asked for part of a page. Boosted navigation and history
// restores swap the whole body, so they get the full page.
func wantsFragment(r *http.Request) bool {
	h := r.Header
	return h.Get("HX-Request") == "true" &&
		h.Get("HX-Boosted") != "true" &&
		h.Get("HX-History-Restore-Request") != "true"
}

// render writes page for a navigation and part for an htmx swap (part nil: always the page). It
// renders into a buffer first, so a failing component still yields a clean error answer.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page, part templ.Component) error {
	addVary(w.Header(), "HX-Request")
	c := page
	if part != nil && (page == nil || wantsFragment(r)) {
		c = part
	}
	buf := renderBuffers.Get().(*bytes.Buffer)
	defer putRenderBuffer(buf)
	if err := c.Render(r.Context(), buf); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	out := showBidiControls(buf.Bytes())
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Pages carry students' personal data: no shared or browser cache may keep them.
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if _, err := w.Write(out); err != nil {
		s.log.DebugContext(r.Context(), "write response", "err", err)
	}
	return nil
}

// renderBuffers keeps the buffers pages are rendered into: a queue page is 150 kB, and growing a
// fresh buffer to that size for every request was a tenth of the server's CPU per page.
var renderBuffers = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, 64<<10)) }}

// maxPooledBuffer is the largest buffer kept for the next page; a rare huge page's is dropped.
const maxPooledBuffer = 1 << 20

func putRenderBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledBuffer {
		return
	}
	b.Reset()
	renderBuffers.Put(b)
}

// addVary adds field to the one Vary header line (the session middleware has already named
// Cookie), so a reader of Header.Get sees every field.
func addVary(h http.Header, field string) {
	fields := h.Values("Vary")
	if slices.Contains(fields, field) {
		return
	}
	h.Set("Vary", strings.Join(append(fields, field), ", "))
}

// redirect ends a successful POST: htmx follows HX-Redirect, a plain form follows 303.
func redirect(w http.ResponseWriter, r *http.Request, url string) {
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Redirect", url)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, url, http.StatusSeeOther)
}

// showBidiControls writes every bidirectional control character in a page as its code point,
// "[U+202E]". regdesk's languages never need them, and in a name or a reason someone typed they
// reorder what follows: a right-to-left override makes "gnp.exe" read as "exe.png". Shown as a
// code they can mislead nobody; the stylesheet isolates names and reasons besides.
func showBidiControls(page []byte) []byte {
	if !hasBidiControl(page) {
		return page
	}
	var out bytes.Buffer
	out.Grow(len(page) + 64)
	for len(page) > 0 {
		r, size := utf8.DecodeRune(page)
		if isBidiControl(r) {
			fmt.Fprintf(&out, "[U+%04X]", r)
		} else {
			out.Write(page[:size])
		}
		page = page[size:]
	}
	return out.Bytes()
}

// hasBidiControl reports whether page holds a bidirectional control character. Every page goes
// through it, so it looks only at the two lead bytes those characters' UTF-8 starts with (0xD8 for
// U+061C, 0xE2 for the rest), which the byte search finds many times faster than decoding each rune.
func hasBidiControl(page []byte) bool {
	if bytes.Contains(page, []byte("\u061C")) {
		return true
	}
	for {
		i := bytes.IndexByte(page, 0xE2)
		if i < 0 {
			return false
		}
		if r, _ := utf8.DecodeRune(page[i:]); isBidiControl(r) {
			return true
		}
		page = page[i+1:]
	}
}

// isBidiControl reports the explicit directional formatting characters: the marks, embeddings,
// overrides and isolates of Unicode's bidirectional algorithm.
func isBidiControl(r rune) bool {
	switch {
	case r == '\u200E', r == '\u200F', r == '\u061C':
		return true
	case r >= '\u202A' && r <= '\u202E':
		return true
	case r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// moduleLabel is a course module's name as pages show it: the LMS names a course's default module
// nothing, and pages call it the default module.
func moduleLabel(loc *i18n.Localizer, name string) string {
	if name == "" {
		return loc.T("module.default")
	}
	return name
}

// studentLabel is a student's name as pages show it: the LMS may know no name, and pages say so.
func studentLabel(loc *i18n.Localizer, name string) string {
	if name == "" {
		return loc.T("student.noName")
	}
	return name
}
