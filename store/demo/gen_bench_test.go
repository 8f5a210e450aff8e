package demo

import (
	"context"
	"testing"
	"time"
)

// BenchmarkGenerate measures the generator alone, without PostgreSQL: how fast the rows and
// their histories are simulated.
func BenchmarkGenerate(b *testing.B) {
	const rows = 100_000
	for b.Loop() {
		g := newGen(Config{Rows: rows, Seed: 1, Now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)})
		ch := make(chan *batch, 1)
		go func() { g.run(context.Background(), rows, 5000, ch); close(ch) }()
		events := 0
		for bt := range ch {
			events += bt.events
		}
		b.ReportMetric(float64(events)/rows, "events/row")
	}
}
