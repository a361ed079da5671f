package bbs

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

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
type limiter struct {
	sem     *semaphore.Weighted // nil when unlimited
	size    int64
	queue   int64
	timeout time.Duration

	// busy and queued integrate the requests holding a worker and
	// waiting for one over time, for their exact mean over any span.
	busy     occupancy.Gauge
	queued   occupancy.Gauge
	waiting  atomic.Int64 // places taken in the queue
	rejected atomic.Int64
	waitNs   atomic.Int64
}

func newLimiter(size, queue int, timeout time.Duration) *limiter {
	l := &limiter{size: int64(size), queue: int64(queue), timeout: timeout}
	if size > 0 {
		l.sem = semaphore.NewWeighted(int64(size))
	}
	return l
}

// waitForWorker waits for a worker and returns the function that frees it
// and how long the wait took. In a goroutine dump, a request queued for a
// worker shows this frame (kept out of line so that it is always its own).
//
//go:noinline
func (l *limiter) waitForWorker(ctx context.Context) (release func(), wait time.Duration, err error) {
	if l.sem == nil || l.sem.TryAcquire(1) {
		return l.work(), 0, nil
	}
	if l.waiting.Add(1) > l.queue {
		l.waiting.Add(-1)
		l.rejected.Add(1)
		return nil, 0, errQueueFull
	}
	in := l.queued.Enter()
	wctx, cancel := context.WithTimeout(ctx, l.timeout)
	err = l.sem.Acquire(wctx, 1)
	cancel()
	wait = l.queued.Leave(in)
	l.waiting.Add(-1)
	l.waitNs.Add(int64(wait))
	if err != nil {
		if ctx.Err() != nil {
			return nil, wait, ctx.Err() // the client went away
		}
		l.rejected.Add(1)
		return nil, wait, errQueueTimeout
	}
	return l.work(), wait, nil
}

// work marks a request busy on a worker and returns the function that
// frees the worker.
func (l *limiter) work() func() {
	t := l.busy.Enter()
	return func() {
		l.busy.Leave(t)
		if l.sem != nil {
			l.sem.Release(1)
		}
	}
}

// WorkerStats is a reading of the worker limit.
type WorkerStats struct {
	Size             int     `json:"size"` // 0 = unlimited
	QueueSize        int     `json:"queue_size"`
	Busy             int64   `json:"busy"`   // now: a point sample, see BusySecondsTotal
	Queued           int64   `json:"queued"` // now: a point sample, see QueuedSecondsTotal
	Rejected         int64   `json:"rejected"`
	WaitSecondsTotal float64 `json:"wait_seconds_total"`
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
	return WorkerStats{
		Size:               int(l.size),
		QueueSize:          int(l.queue),
		Busy:               busy,
		Queued:             queued,
		Rejected:           l.rejected.Load(),
		WaitSecondsTotal:   time.Duration(l.waitNs.Load()).Seconds(),
		BusySecondsTotal:   busyT.Seconds(),
		QueuedSecondsTotal: queuedT.Seconds(),
	}
}
