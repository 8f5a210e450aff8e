package web

import (
	"testing"

	"regdesk/views/i18n"
)

// Every outcome a bulk result can count has its words in every language: a key the catalogue
// lacks shows as raw text on the result page (refused_by_lms did).
func TestBulkOutcomesHaveWordsInEveryLanguage(t *testing.T) {
	t.Parallel()
	for _, lang := range []i18n.Lang{i18n.FI, i18n.SV, i18n.EN} {
		loc := i18n.For(lang)
		for _, o := range bulkOutcomes {
			if key := "bulk.outcome." + string(o); !loc.Has(key) {
				t.Errorf("%s: the catalogue lacks %s", lang, key)
			}
		}
	}
}
