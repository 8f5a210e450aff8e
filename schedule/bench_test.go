package schedule_test

import (
	"testing"
	"time"

	"regdesk/schedule"
)

// BenchmarkClassify measures the per-row cost every queue row and every page pays.
func BenchmarkClassify(b *testing.B) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	submitted := now.Add(-30 * time.Hour)
	row := schedule.Row{
		State: schedule.StateSubmissionUncertain, ErrorCode: schedule.ErrorSisuTimeout, NeedsAdminAttention: true,
		StateEnteredAt: submitted, StateChangedAt: submitted, NextAttemptAt: now.Add(time.Hour),
		SubmittedAt: &submitted, SubmitRetryCount: 2, VerifyAttemptCount: 7,
	}
	b.ReportAllocs()
	for b.Loop() {
		if st := schedule.Classify(row, now); !st.NeedsAdmin {
			b.Fatal("the overdue uncertain row does not need admin")
		}
	}
}
