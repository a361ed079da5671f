package bbs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
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

// TestLimiterResizeUnderLoad runs twelve requests in a loop against a
// limit of 2 with a long queue, grows the limit to 6 and shrinks it to 3:
// growing hands queued requests workers at once and the busy workers
// reach 6, never more; shrinking stops none, and once the workers above
// the new limit are freed no more than 3 are ever busy; no request is
// refused or times out.
func TestLimiterResizeUnderLoad(t *testing.T) {
	l := newLimiter(2, 100, time.Minute)
	var busy, peak, over atomic.Int64
	var limit atomic.Int64
	limit.Store(2)
	stop := make(chan struct{})
	errs := make(chan error, 12)
	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				release, _, err := l.waitForWorker(context.Background())
				if err != nil {
					errs <- err
					return
				}
				n := busy.Add(1)
				if n > limit.Load() {
					over.Store(n)
				}
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(time.Millisecond)
				busy.Add(-1)
				release()
			}
		})
	}
	waitUntil(t, "requests queued", func() bool { return l.stats().Queued > 0 })

	limit.Store(6)
	l.set(6, 100, time.Minute)
	if st := l.stats(); st.Size != 6 || st.Busy > 6 {
		t.Errorf("after growing to 6: %+v; want size 6, at most 6 busy", st)
	}
	peak.Store(0)
	waitUntil(t, "6 workers busy", func() bool { return peak.Load() == 6 })

	shrunk := time.Now()
	l.set(3, 100, time.Minute)
	waitUntil(t, "the workers above 3 freed", func() bool { s := l.settings(); return s.over == 0 && !s.settled.Before(shrunk) })
	over.Store(0)
	limit.Store(3)
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a request failed while the limit changed: %v", err)
	}
	if o := over.Load(); o > 0 {
		t.Errorf("%d workers busy after the shrink took effect; want at most 3", o)
	}
	if st := l.stats(); st.Size != 3 || st.Busy != 0 || st.Queued != 0 || st.Rejected != 0 || l.running != 0 {
		t.Errorf("at the end: %+v, running %d; want size 3, none busy, queued or rejected", st, l.running)
	}
}

// TestLimiterQueueSet shortens the queue below the requests in it: those
// stay and get their workers, a new arrival is refused while it is full;
// a new timeout applies to requests that queue from then on.
func TestLimiterQueueSet(t *testing.T) {
	l := newLimiter(1, 5, time.Minute)
	release, _, _ := l.waitForWorker(context.Background())
	done := make(chan error, 3)
	for i := range 3 {
		go func() {
			r, _, err := l.waitForWorker(context.Background())
			if err == nil {
				r()
			}
			done <- err
		}()
		waitUntil(t, "a request queued", func() bool { return l.stats().Queued == int64(i+1) })
	}
	l.set(1, 1, 20*time.Millisecond)
	if _, _, err := l.waitForWorker(context.Background()); !errors.Is(err, errQueueFull) {
		t.Errorf("with 3 queued and the queue set to 1: %v; want errQueueFull", err)
	}
	time.Sleep(40 * time.Millisecond) // past the new timeout: the 3 queued before keep their minute
	release()
	for range 3 {
		if err := <-done; err != nil {
			t.Errorf("a request queued before the change: %v; want a worker", err)
		}
	}
	release, _, _ = l.waitForWorker(context.Background())
	defer release()
	start := time.Now()
	if _, _, err := l.waitForWorker(context.Background()); !errors.Is(err, errQueueTimeout) || time.Since(start) > 10*time.Second {
		t.Errorf("a request queued after the change: %v after %v; want errQueueTimeout after the new 20ms", err, time.Since(start))
	}
}
