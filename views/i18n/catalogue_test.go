package i18n_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	"regdesk/views/i18n"
)

// pluralForms are the CLDR plural categories each language's cardinal numbers use: Finnish,
// Swedish and English all tell "one" from "other".
var pluralForms = map[string][]string{"en": {"one", "other"}, "fi": {"one", "other"}, "sv": {"one", "other"}}

// placeholder is the only template action a message may hold: a named value.
var (
	placeholder = regexp.MustCompile(`\{\{\s*\.([A-Za-z]\w*)\s*\}\}`)
	anyAction   = regexp.MustCompile(`\{\{.*?\}\}`)
)

// message is one catalogue entry: its forms by plural category ("other" alone when it does not
// vary with a count).
type message map[string]string

func loadCatalogue(t *testing.T, lang string) map[string]message {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("locales", lang+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatalf("%s.json: %v", lang, err)
	}
	out := make(map[string]message, len(entries))
	for key, v := range entries {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[key] = message{"other": s}
			continue
		}
		var forms map[string]string
		if err := json.Unmarshal(v, &forms); err != nil {
			t.Errorf("%s.json %q: neither a string nor plural forms: %v", lang, key, err)
			continue
		}
		delete(forms, "description")
		out[key] = forms
	}
	return out
}

func placeholders(forms message) []string {
	var names []string
	for _, text := range forms {
		for _, m := range placeholder.FindAllStringSubmatch(text, -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
	}
	slices.Sort(names)
	return names
}

// TestCatalogueComplete fails for a key missing or empty in any language, a plural message
// lacking one of its language's forms, a message whose placeholders differ from the English one,
// and a template action other than a named placeholder (Localizer.T joins a message's text
// around its placeholders instead of executing it, which holds only for plain ones).
func TestCatalogueComplete(t *testing.T) {
	t.Parallel()
	en := loadCatalogue(t, "en")
	if len(en) == 0 {
		t.Fatal("the English catalogue is empty")
	}
	for _, lang := range []string{"en", "fi", "sv"} {
		cat := loadCatalogue(t, lang)
		for key := range en {
			if _, ok := cat[key]; !ok {
				t.Errorf("%s: %q is missing", lang, key)
			}
		}
		for key, forms := range cat {
			enForms, ok := en[key]
			if !ok {
				t.Errorf("%s: %q is not in the English catalogue", lang, key)
				continue
			}
			plural := len(enForms) > 1 || len(forms) > 1
			if plural {
				for _, f := range pluralForms[lang] {
					if strings.TrimSpace(forms[f]) == "" {
						t.Errorf("%s: %q lacks its %q form", lang, key, f)
					}
				}
			}
			for f, text := range forms {
				if strings.TrimSpace(text) == "" {
					t.Errorf("%s: %q (%s) is empty", lang, key, f)
				}
				for _, a := range anyAction.FindAllString(text, -1) {
					if !placeholder.MatchString(a) {
						t.Errorf("%s: %q (%s) holds %s; only named placeholders {{.Name}} are allowed", lang, key, f, a)
					}
				}
				if _, err := template.New(key).Parse(text); err != nil {
					t.Errorf("%s: %q (%s) does not parse: %v", lang, key, f, err)
				}
			}
			if got, want := placeholders(forms), placeholders(enForms); !slices.Equal(got, want) {
				t.Errorf("%s: %q has placeholders %v, English has %v", lang, key, got, want)
			}
		}
	}
}

// keyUse finds the catalogue keys the code names literally: T(ctx, "key"), loc.T("key"),
// Key: "key" in an error, and tr("key") / msg("key") helpers.
var keyUse = regexp.MustCompile(`(?:\bT\(ctx,\s*|\.T\(|\bKey:\s*|\btr\(|\bmsgKey\()"([a-z][A-Za-z0-9_]*\.[A-Za-z0-9_.]+)"`)

// TestCatalogueHoldsEveryKeyUsed scans the Go and templ sources for keys named literally and
// fails for one the catalogue lacks, so a typo is caught before a page shows it.
func TestCatalogueHoldsEveryKeyUsed(t *testing.T) {
	t.Parallel()
	loc := i18n.For(i18n.EN)
	root := filepath.Join("..", "..")
	used := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "bin") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(path, "_templ.go") || strings.HasSuffix(path, "_test.go") ||
			(!strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".templ")) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range keyUse.FindAllStringSubmatch(string(src), -1) {
			used++
			if !loc.Has(m[1]) {
				t.Errorf("%s names %q, which the catalogue lacks", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if used < 20 {
		t.Fatalf("found only %d keys in the sources; the pattern has gone stale", used)
	}
}

// TestCountHasPluralForms fails for a message that names {{.Count}} without plural forms: T
// chooses a form by Count, and a message without a "one" form comes back missing for a count of
// one, on a page showing ⟦key⟧.
func TestCountHasPluralForms(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "fi", "sv"} {
		for key, forms := range loadCatalogue(t, lang) {
			if slices.Contains(placeholders(forms), "Count") && (forms["one"] == "" || forms["other"] == "") {
				t.Errorf("%s.json %q names {{.Count}} but has no one and other forms", lang, key)
			}
		}
	}
}

// TestEnglishSaysNeedsAPerson holds the English to one name for what the queue shows by default:
// "Needs a person", as the overview and the alerts call it, never "needs admin" or "Needs
// attention".
func TestEnglishSaysNeedsAPerson(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("locales/en.json")
	if err != nil {
		t.Fatal(err)
	}
	var cat map[string]any
	if err := json.Unmarshal(raw, &cat); err != nil {
		t.Fatal(err)
	}
	bad := regexp.MustCompile(`(?i)needs? (an )?admin\b|needs attention`)
	for k, v := range cat {
		text, _ := json.Marshal(v)
		if m := bad.FindString(string(text)); m != "" {
			t.Errorf("%s says %q; say \"needs a person\"", k, m)
		}
	}
}
