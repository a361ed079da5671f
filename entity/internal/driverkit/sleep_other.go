//go:build !linux

package driverkit

import (
	"context"
	"time"

	"bbslab/occupancy"
)

// wait waits d from start or until ctx ends. Outside Linux it is a Go
// timer, which wakes an idle processor at millisecond steps
// (sleep_linux.go).
func wait(ctx context.Context, start occupancy.Stamp, d time.Duration) error {
	return timerWait(ctx, d)
}
