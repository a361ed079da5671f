package bbs

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"bbslab/occupancy"
)

// Errors of the worker limit; both become 503 with Retry-After.
var (
	errQueueFull    = errors.New("all workers are busy and the queue is full")
	errQueueTimeout = errors.New("waited too long for a worker")
)

// limiter lets at most size requests run a command at once. The others wait
// first come, first served, in a queue of at most queue places, each for at
// most timeout. A size of 0 means no limit. It is the article's ExecuteQueue.
//
// Its three settings can change while the board runs (set, /admin/knobs),
// except a size of 0, which skips all counting and stays.
//
// It hands a freed worker straight to the first request in the queue, as
// golang.org/x/sync/semaphore does, but stamps the moment: the request is
// busy on its worker from then on, also while it is runnable and waits for a
// CPU, and its time in the queue ends there. The semaphore cannot say when
// it granted a waiter, so a busy-worker count taken when the waiter next ran
// read 4.4 of 5 workers with ten clients queued on one core (the rest was
// the hand-off waiting for the CPU).
type limiter struct {
	unlimited bool // size 0 at the start: nothing is counted

	mu      sync.Mutex
	size    int64
	queue   int64
	timeout time.Duration
	running int64     // workers handed out
	waiting list.List // of *waiter, first come first served
	settled time.Time // when running last came within size after a set

	// busy and queued integrate the requests holding a worker and
	// waiting for one over time, for their exact mean over any span.
	busy     occupancy.Gauge
	queued   occupancy.Gauge
	rejected atomic.Int64
	waitNs   atomic.Int64
}

// A waiter is a request in the queue; it receives the busy Stamp of the
// worker handed to it.
type waiter struct{ ready chan occupancy.Stamp }

func newLimiter(size, queue int, timeout time.Duration) *limiter {
	return &limiter{unlimited: size == 0, size: int64(size), queue: int64(queue), timeout: timeout}
}

// set changes the settings (size at least 1, on a limiter that was not
// unlimited at the start) for the requests from now on. A larger size
// hands workers to the first queued requests at once; with a smaller one
// the requests running keep their workers, and each worker freed above
// the size is retired rather than handed on, so that no request is
// stopped or dropped and, once they are done, no more than size run. A
// shorter queue refuses the requests that come while it is full, keeping
// those already in it; a new timeout applies to the requests that queue
// from now on.
func (l *limiter) set(size, queue int, timeout time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.size, l.queue, l.timeout = int64(size), int64(queue), timeout
	for l.running < l.size {
		e := l.waiting.Front()
		if e == nil {
			break
		}
		l.running++
		l.waiting.Remove(e).(*waiter).ready <- l.busy.Enter()
	}
	if l.running <= l.size {
		l.settled = time.Now()
	}
}

// limitSettings is the worker limit's settings and how it stands against
// them.
type limitSettings struct {
	size, queue int
	timeout     time.Duration
	over        int64     // workers running above size, retired as they are freed
	settled     time.Time // when running last came within size after a set
}

// settings reads the settings in force.
func (l *limiter) settings() limitSettings {
	l.mu.Lock()
	defer l.mu.Unlock()
	return limitSettings{size: int(l.size), queue: int(l.queue), timeout: l.timeout,
		over: max(0, l.running-l.size), settled: l.settled}
}

// waitForWorker waits for a worker and returns the function that frees it
// and how long the wait took. In a goroutine dump, a request queued for a
// worker shows this frame (kept out of line so that it is always its own).
//
//go:noinline
func (l *limiter) waitForWorker(ctx context.Context) (release func(), wait time.Duration, err error) {
	if l.unlimited {
		return l.work(l.busy.Enter()), 0, nil
	}
	l.mu.Lock()
	if l.running < l.size && l.waiting.Len() == 0 {
		l.running++
		l.mu.Unlock()
		return l.work(l.busy.Enter()), 0, nil
	}
	if int64(l.waiting.Len()) >= l.queue {
		l.mu.Unlock()
		l.rejected.Add(1)
		return nil, 0, errQueueFull
	}
	w := &waiter{ready: make(chan occupancy.Stamp, 1)}
	e := l.waiting.PushBack(w)
	in := l.queued.Enter()
	timeout := l.timeout
	l.mu.Unlock()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case at := <-w.ready:
		release, wait = l.granted(in, at)
		return release, wait, nil
	case <-ctx.Done():
	case <-timer.C:
	}
	l.mu.Lock()
	select {
	case at := <-w.ready: // handed a worker just as the wait ended
		l.mu.Unlock()
		release, wait = l.granted(in, at)
		if ctx.Err() == nil {
			return release, wait, nil
		}
		release() // the client went away: pass the worker on
		return nil, wait, ctx.Err()
	default:
		l.waiting.Remove(e)
		l.mu.Unlock()
	}
	wait = l.queued.Leave(in)
	l.waitNs.Add(int64(wait))
	if ctx.Err() != nil {
		return nil, wait, ctx.Err() // the client went away
	}
	l.rejected.Add(1)
	return nil, wait, errQueueTimeout
}

// granted ends the queue wait of a request that entered at in and was
// handed a worker busy from at, and returns the worker's release and the
// wait.
func (l *limiter) granted(in, at occupancy.Stamp) (func(), time.Duration) {
	wait := l.queued.LeaveAt(in, at)
	l.waitNs.Add(int64(wait))
	return l.work(at), wait
}

// work returns the function that frees the worker busy since t: it passes
// the worker straight to the first request in the queue, if any, unless
// the size went down below the workers running (set).
func (l *limiter) work(t occupancy.Stamp) func() {
	return func() {
		l.busy.Leave(t)
		if l.unlimited {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.running > l.size {
			l.running--
			if l.running == l.size {
				l.settled = time.Now()
			}
			return
		}
		if e := l.waiting.Front(); e != nil {
			w := l.waiting.Remove(e).(*waiter)
			w.ready <- l.busy.Enter()
			return
		}
		l.running--
	}
}

// WorkerStats is a reading of the worker limit.
type WorkerStats struct {
	Size                int     `json:"size"` // 0 = unlimited
	QueueSize           int     `json:"queue_size"`
	QueueTimeoutSeconds float64 `json:"queue_timeout_seconds"`
	Busy                int64   `json:"busy"`   // now: a point sample, see BusySecondsTotal
	Queued              int64   `json:"queued"` // now: a point sample, see QueuedSecondsTotal
	Rejected            int64   `json:"rejected"`
	WaitSecondsTotal    float64 `json:"wait_seconds_total"`
	// Busy worker-seconds and queued request-seconds since start: the
	// increase over a span divided by its length is the mean number of
	// busy workers and of queued requests over it (Little's law), which a
	// sample of Busy or Queued cannot give on a server pinned to one core
	// (the sampler runs only when no request does).
	BusySecondsTotal   float64 `json:"busy_seconds_total"`
	QueuedSecondsTotal float64 `json:"queued_seconds_total"`
}

func (l *limiter) stats() WorkerStats {
	busy, busyT := l.busy.Read()
	queued, queuedT := l.queued.Read()
	set := l.settings()
	return WorkerStats{
		Size:                set.size,
		QueueSize:           set.queue,
		QueueTimeoutSeconds: set.timeout.Seconds(),
		Busy:                busy,
		Queued:              queued,
		Rejected:            l.rejected.Load(),
		WaitSecondsTotal:    time.Duration(l.waitNs.Load()).Seconds(),
		BusySecondsTotal:    busyT.Seconds(),
		QueuedSecondsTotal:  queuedT.Seconds(),
	}
}
