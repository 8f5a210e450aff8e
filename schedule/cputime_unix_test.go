//go:build unix

package schedule_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, user and system: on a machine shared with other
// work, CPU time per operation says what an operation costs where wall time also counts the
// waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
