package bbs

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
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

	busy     atomic.Int64
	queued   atomic.Int64
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
	if l.sem == nil {
		l.busy.Add(1)
		return l.done, 0, nil
	}
	if l.sem.TryAcquire(1) {
		l.busy.Add(1)
		return l.done, 0, nil
	}
	if l.queued.Add(1) > l.queue {
		l.queued.Add(-1)
		l.rejected.Add(1)
		return nil, 0, errQueueFull
	}
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, l.timeout)
	err = l.sem.Acquire(wctx, 1)
	cancel()
	l.queued.Add(-1)
	wait = time.Since(start)
	l.waitNs.Add(int64(wait))
	if err != nil {
		if ctx.Err() != nil {
			return nil, wait, ctx.Err() // the client went away
		}
		l.rejected.Add(1)
		return nil, wait, errQueueTimeout
	}
	l.busy.Add(1)
	return l.done, wait, nil
}

func (l *limiter) done() {
	l.busy.Add(-1)
	if l.sem != nil {
		l.sem.Release(1)
	}
}

// WorkerStats is a reading of the worker limit.
type WorkerStats struct {
	Size             int     `json:"size"` // 0 = unlimited
	QueueSize        int     `json:"queue_size"`
	Busy             int64   `json:"busy"`
	Queued           int64   `json:"queued"`
	Rejected         int64   `json:"rejected"`
	WaitSecondsTotal float64 `json:"wait_seconds_total"`
}

func (l *limiter) stats() WorkerStats {
	return WorkerStats{
		Size:             int(l.size),
		QueueSize:        int(l.queue),
		Busy:             l.busy.Load(),
		Queued:           l.queued.Load(),
		Rejected:         l.rejected.Load(),
		WaitSecondsTotal: time.Duration(l.waitNs.Load()).Seconds(),
	}
}
