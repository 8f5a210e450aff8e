package store_test

import (
	"context"
	"encoding/csv"
	"io"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"regdesk/store"
	"regdesk/store/storetest"
)

// heapPeak samples the heap in use every few milliseconds while fn runs and returns the highest
// value above the heap before it started, in bytes.
func heapPeak(fn func() error) (uint64, error) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	err := fn()
	close(done)
	runtime.ReadMemStats(&ms)
	p := max(peak.Load(), ms.HeapInuse)
	if p < base {
		return 0, err
	}
	return p - base, err
}

// BenchmarkExport100k measures the peak heap of exporting 100,000 rows of the benchmark ledger as
// CSV: streamed from the database's answer row by row (store.RegistrationExport), and for
// comparison read as one list first, both in this process's heap. `make bench` states the server
// process's own peak resident set over HTTP (cmd/regdesk's benchExports).
func BenchmarkExport100k(b *testing.B) {
	st := benchLedger(b)
	ctx := context.Background()
	const rows = 100_000
	if storetest.BenchRows(b) < rows {
		b.Skipf("the ledger has fewer than %d rows", rows)
	}
	csvRow := func(w *csv.Writer, r store.RegistrationListRow) error {
		return w.Write([]string{r.ID, r.StudentName, store.Deref(r.StudentNumber), r.StudentEmail, r.CourseName, r.ModuleName,
			string(r.State), string(r.ErrorCode), strconv.Itoa(int(r.AttemptNumber)), r.UpdatedAt.Format(time.RFC3339)})
	}
	b.Run("Streamed", func(b *testing.B) {
		var worst uint64
		for b.Loop() {
			w := csv.NewWriter(io.Discard)
			n, want := 0, 0
			peak, err := heapPeak(func() error {
				return st.RegistrationExport(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses()}, rows, func(h store.ExportHead) error { want = h.Rows; return nil },
					func(r store.RegistrationListRow) error { n++; return csvRow(w, r) })
			})
			// A ledger of exactly 100,000 rows holds a few superseded ones, which the queue leaves out.
			if err != nil || n != want || n < rows*9/10 {
				b.Fatalf("export: %d rows of %d, %v", n, want, err)
			}
			worst = max(worst, peak)
			b.ReportMetric(float64(n), "rows")
		}
		b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MB")
	})
	b.Run("ReadWhole", func(b *testing.B) {
		var worst uint64
		for b.Loop() {
			w := csv.NewWriter(io.Discard)
			peak, err := heapPeak(func() error {
				list, _, err := st.RegistrationList(ctx, benchNow, store.RegistrationFilter{Scope: store.AllCourses()}, nil, rows)
				for _, r := range list {
					_ = csvRow(w, r)
				}
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			worst = max(worst, peak)
		}
		b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MB")
	})
}
