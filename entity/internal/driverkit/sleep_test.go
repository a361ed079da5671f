package driverkit

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSleep checks the wait's contract, not its precision (the comment in
// sleep_linux.go gives the measured figures): it waits at least d, stops
// when the context ends, and a descriptor reused after either still works.
func TestSleep(t *testing.T) {
	for range 3 {
		got, err := sleep(context.Background(), 2*time.Millisecond)
		if err != nil || got < 2*time.Millisecond {
			t.Errorf("sleep(2ms) = %v, %v; want at least 2ms", got, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	got, err := sleep(ctx, 5*time.Second)
	if !errors.Is(err, context.DeadlineExceeded) || got > 2*time.Second {
		t.Errorf("sleep(5s) with a 10ms deadline = %v, %v; want DeadlineExceeded soon", got, err)
	}
	got, err = sleep(context.Background(), time.Millisecond)
	if err != nil || got < time.Millisecond {
		t.Errorf("sleep(1ms) after a cancelled one = %v, %v; want at least 1ms", got, err)
	}
}
