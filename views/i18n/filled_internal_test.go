package i18n

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestFilledMessagesAgreeWithTemplates: T joins a message's learnt pieces instead of executing
// its template; for every message with placeholders, in every language and for counts of both
// plural forms (integers, decimals, a float that is whole), the joined text must be what go-i18n
// writes from the template itself.
func TestFilledMessagesAgreeWithTemplates(t *testing.T) {
	raw, err := os.ReadFile("locales/en.json")
	if err != nil {
		t.Fatal(err)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`\{\{\.([A-Za-z]\w*)\}\}`)
	counts := []any{0, 1, 2, 5, 21, 1_000_000, int64(1), 1.0, 1.5, 2.25, float32(1)}
	checked := 0
	for key, v := range entries {
		var names []string
		for _, m := range name.FindAllStringSubmatch(string(v), -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
		if len(names) == 0 {
			continue
		}
		for _, lang := range Langs {
			// A fresh localizer each time, so every case learns its own pieces.
			l := &Localizer{Lang: lang, loc: For(lang).loc}
			for _, count := range counts {
				var args []any
				data := map[string]any{}
				var operand any
				for _, n := range names {
					var val any = "«" + n + " {{.Count}} \x00arg0\x00»"
					if n == "Count" || n == "N" {
						val = count
					}
					if n == "Count" {
						operand = pluralOperand(count)
					}
					args = append(args, n, val)
					data[n] = l.value(val)
				}
				want, ok := l.template(key, data, operand)
				if !ok {
					t.Fatalf("%s %s: not in the catalogue", lang, key)
				}
				// Twice: the first call learns the pieces, the second joins them from the cache.
				for range 2 {
					if got := l.T(key, args...); got != want {
						t.Errorf("%s T(%q) with count %v = %q, the template writes %q", lang, key, count, got, want)
					}
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d cases checked: the catalogue was not read", checked)
	}
}
