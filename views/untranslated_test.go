package views_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// notYetTranslated are the components whose words are still written in English in the templ
// source. It is empty: every component takes its words from the catalogue, and a file never goes
// on it.
var notYetTranslated = []string{}

var (
	// humanAttr are the attributes a person reads (or hears from a screen reader).
	humanAttr = regexp.MustCompile(`\b(title|placeholder|aria-label|alt|aria-description|aria-roledescription)="([^"]*)"`)
	tag       = regexp.MustCompile(`<[^<>]*>`)
	letters   = regexp.MustCompile(`\p{L}{2,}`)
	// control are the templ lines that are Go, not text.
	control = regexp.MustCompile(`^(if |} else|else |for |switch |case |default:|@|}|\{\{|//|package |import|"|\)|templ |func |var |const |type |return )`)
)

// allowedWords are the few words every language writes alike.
var allowedWords = []string{"regdesk", "Sisu", "Suotar"}

// TestComponentsHoldNoEnglish fails for words written straight into a component's markup (text
// between tags, or a title, placeholder, aria-label or alt) instead of coming from the catalogue
// through i18n.T, so no page shows English to a Finnish or Swedish reader.
func TestComponentsHoldNoEnglish(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templ files: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		found := literalText(string(src))
		if slices.Contains(notYetTranslated, f) {
			if len(found) == 0 {
				t.Errorf("%s holds no English any more: take it off notYetTranslated", f)
			}
			continue
		}
		for _, s := range found {
			t.Errorf("%s: %q is written in the markup; put it in views/i18n/locales/{en,fi,sv}.json and write "+
				"{ i18n.T(ctx, \"key\") } (README: How to add or change a string)", f, s)
		}
	}
}

// literalText returns the words a templ file writes straight into its markup.
func literalText(src string) []string {
	var found []string
	inTemplate := false
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, "templ ") {
			inTemplate = true
			continue
		}
		if line == "}" {
			inTemplate = false
			continue
		}
		s := strings.TrimSpace(line)
		if !inTemplate || s == "" || control.MatchString(s) {
			continue
		}
		s = stripExpressions(s)
		for _, m := range humanAttr.FindAllStringSubmatch(s, -1) {
			if hasWords(m[2]) {
				found = append(found, m[2])
			}
		}
		if !strings.ContainsAny(s, "<>") && regexp.MustCompile(`^[\w:.-]+(=(".*")?)?$`).MatchString(s) {
			continue // an attribute of a tag written over several lines
		}
		text := tag.ReplaceAllString(s, " ")
		if i := strings.IndexByte(text, '<'); i >= 0 {
			text = text[:i] // a tag that goes on to the next line
		}
		if j := strings.LastIndexByte(text, '>'); j >= 0 {
			text = text[j+1:] // the end of a tag begun on an earlier line
		}
		if hasWords(text) {
			found = append(found, strings.TrimSpace(text))
		}
	}
	return found
}

// stripExpressions removes the { Go expressions } of a line, whose words are code.
func stripExpressions(s string) string {
	var b strings.Builder
	depth := 0
	inString := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if depth > 0 {
			switch {
			case inString != 0:
				if c == '\\' {
					i++
				} else if c == inString {
					inString = 0
				}
			case c == '"' || c == '`':
				inString = c
			case c == '{':
				depth++
			case c == '}':
				depth--
			}
			continue
		}
		if c == '{' {
			depth = 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func hasWords(s string) bool {
	for _, w := range letters.FindAllString(s, -1) {
		if !slices.Contains(allowedWords, w) {
			return true
		}
	}
	return false
}
