package driverkit

import (
	"context"
	"time"
)

// timerSleep waits d or until ctx ends on a Go timer, and returns how long
// it waited. It is the wait where no timerfd is at hand (sleep_linux.go).
func timerSleep(ctx context.Context, d time.Duration) (time.Duration, error) {
	start := time.Now()
	if d <= 0 {
		return 0, ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return time.Since(start), nil
	case <-ctx.Done():
		return time.Since(start), ctx.Err()
	}
}
