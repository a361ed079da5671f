//go:build !linux

package driverkit

import (
	"context"
	"time"
)

// sleep waits d or until ctx ends, and returns how long it waited. Outside
// Linux it is a Go timer, which wakes an idle processor at millisecond
// steps (sleep_linux.go).
func sleep(ctx context.Context, d time.Duration) (time.Duration, error) {
	return timerSleep(ctx, d)
}
