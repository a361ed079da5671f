package driverkit

import (
	"context"
	"time"

	"bbslab/occupancy"
)

// sleep waits d or until ctx ends, and returns how long it waited: the
// one timing of a wait on the network, on occupancy's clock, which the
// statement's Conn and the store's counters both read.
func sleep(ctx context.Context, d time.Duration) (time.Duration, error) {
	start := occupancy.Now()
	err := wait(ctx, start, d)
	return occupancy.Since(start), err
}

// timerWait waits d or until ctx ends on a Go timer. It is the wait where
// no timerfd is at hand (sleep_linux.go).
func timerWait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
