package web

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a-h/templ"

	"regdesk/views"
	"regdesk/views/i18n"
)

// One reading's overview is drawn once per language, however many ask while it is shared, and a
// new reading is drawn afresh.
func TestOverviewIsDrawnOncePerReadingAndLanguage(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 10, 27, 10, 0, 0, 0, time.UTC)
	days := views.HelsinkiDays(now, overviewDays)
	var mu sync.Mutex
	draws := map[i18n.Lang]int{}
	draw := func(loc *i18n.Localizer, read overviewRead) func() templ.Component {
		return func() templ.Component {
			mu.Lock()
			draws[loc.Lang]++
			mu.Unlock()
			return views.OverviewBody(overviewVM(loc, read))
		}
	}
	get := func(read overviewRead, lang i18n.Lang) string {
		t.Helper()
		loc := i18n.For(lang)
		c, err := read.drawn.body(i18n.With(context.Background(), loc), lang, draw(loc, read))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := c.Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	first := overviewRead{days: days, thisWeek: 2, drawn: &drawnOverview{}}
	var wg sync.WaitGroup
	fi := make([]string, 8)
	for i := range fi {
		wg.Go(func() { fi[i] = get(first, i18n.FI) })
	}
	wg.Wait()
	en := get(first, i18n.EN)
	if en == fi[0] || !strings.Contains(fi[0], `data-testid="tiles"`) {
		t.Fatalf("the English and Finnish drawings are the same, or no drawing")
	}
	for i := 1; i < len(fi); i++ {
		if fi[i] != fi[0] {
			t.Fatalf("two Finnish drawings of one reading differ")
		}
	}
	if get(first, i18n.FI) != fi[0] || get(first, i18n.EN) != en {
		t.Errorf("a kept drawing changed")
	}
	// Eight at once may each draw before the first is kept; after that, nobody draws again.
	mu.Lock()
	fiDraws, enDraws := draws[i18n.FI], draws[i18n.EN]
	mu.Unlock()
	if fiDraws < 1 || fiDraws > len(fi) || enDraws != 1 {
		t.Errorf("drawn %d times in Finnish, %d in English; want 1–%d and 1", fiDraws, enDraws, len(fi))
	}
	get(first, i18n.FI)
	get(first, i18n.EN)
	mu.Lock()
	if draws[i18n.FI] != fiDraws || draws[i18n.EN] != 1 {
		t.Errorf("a kept drawing was drawn again: %v", draws)
	}
	mu.Unlock()
	second := overviewRead{days: days, thisWeek: 2, drawn: &drawnOverview{}}
	second.data.Attention.NeedsAdmin = 7
	if got := get(second, i18n.EN); got == en || !strings.Contains(got, `data-testid="tile-needs_admin" data-count="7"`) {
		t.Errorf("a new reading showed the old drawing")
	}
}
