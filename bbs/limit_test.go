package bbs

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestLimiterHandsOffInOrder queues three requests behind one worker: each
// freed worker goes to the first in line, and the busy worker-seconds run
// on without a gap through every hand-off.
func TestLimiterHandsOffInOrder(t *testing.T) {
	l := newLimiter(1, 10, time.Minute)
	release, _, err := l.waitForWorker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 3)
	releases := make(chan func(), 3)
	for i := range 3 {
		go func() {
			r, _, err := l.waitForWorker(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			order <- i
			releases <- r
		}()
		waitUntil(t, "a request queued", func() bool { return l.stats().Queued == int64(i+1) })
	}
	_, before := l.busy.Read()
	t0 := time.Now()
	release()
	for want := range 3 {
		if got := <-order; got != want {
			t.Errorf("worker handed to request %d; want %d (first come, first served)", got, want)
		}
		time.Sleep(10 * time.Millisecond)
		(<-releases)()
	}
	_, after := l.busy.Read()
	span := time.Since(t0)
	if busy := float64(after-before) / float64(span); busy < 0.99 || busy > 1.0001 {
		t.Errorf("mean busy workers through 3 hand-offs = %.4f; want 1 (no gap)", busy)
	}
	if st := l.stats(); st.Busy != 0 || st.Queued != 0 || l.running != 0 {
		t.Errorf("after all released: %+v, running %d; want none busy or queued", st, l.running)
	}
}

// TestLimiterGivesUp checks the queue's limits: a full queue rejects at
// once, a wait times out, and a client that leaves stops waiting; none of
// them keeps a worker.
func TestLimiterGivesUp(t *testing.T) {
	l := newLimiter(1, 1, 30*time.Millisecond)
	release, _, _ := l.waitForWorker(context.Background())
	done := make(chan error)
	go func() { _, _, err := l.waitForWorker(context.Background()); done <- err }()
	waitUntil(t, "a request queued", func() bool { return l.stats().Queued == 1 })
	if _, _, err := l.waitForWorker(context.Background()); !errors.Is(err, errQueueFull) {
		t.Errorf("with the queue full: %v; want errQueueFull", err)
	}
	if err := <-done; !errors.Is(err, errQueueTimeout) {
		t.Errorf("after the queue timeout: %v; want errQueueTimeout", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, _, err := l.waitForWorker(ctx); done <- err }()
	waitUntil(t, "a request queued", func() bool { return l.stats().Queued == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("client gone: %v; want context.Canceled", err)
	}
	release()
	if r, _, err := l.waitForWorker(context.Background()); err != nil {
		t.Errorf("after release: %v; want the worker free", err)
	} else {
		r()
	}
	if st := l.stats(); st.Busy != 0 || st.Queued != 0 || st.Rejected != 2 {
		t.Errorf("stats %+v; want none busy or queued, 2 rejected", st)
	}
}
