package driverkit

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"bbslab/entity"
	"bbslab/occupancy"
)

// ErrPoolClosed is what a Pool's Acquire and Resize return once it is
// closed.
var ErrPoolClosed = errors.New("pool closed")

// refillTimeout bounds one background open (refill).
const refillTimeout = 30 * time.Second

// prewarmParallel is how many connections Resize opens at once.
const prewarmParallel = 8

// A Pool holds a store's physical connections in fixed mode: at least min
// of them open, at most max handed out, the acquires that find none free
// served first come first served (a freed connection goes straight to the
// first of them, as golang.org/x/sync/semaphore and pgxpool's puddle do).
// Both stores keep their connections in one, so that a pool means the same
// on SQLite and PostgreSQL and can change size while the store runs, which
// neither database/sql nor pgxpool lets a caller do with a minimum kept
// open: pgxpool's sizes are fixed when it is made, database/sql has no
// minimum and opens connections on the acquires' time.
//
// Resize opens the new connections, each checked with dial's ping, before
// any acquire may take them; when the pool shrinks, idle connections above
// the new maximum are closed at once and those in use when they are given
// back, so that no acquire fails and, once they are gone, no more than the
// new maximum are ever in use. Between min and max (pool_min below pool)
// an acquire that finds no idle connection opens one on its own time, as a
// growing pool does.
type Pool[C any] struct {
	dial  func(ctx context.Context) (C, error) // opens one connection and checks that it answers
	close func(C)                              // closes one

	resizing sync.Mutex // one Resize at a time

	mu        sync.Mutex
	min, max  int
	idle      []idleConn[C] // the most recently given back last
	waiters   list.List     // of chan handed[C], first come first served
	open      int           // idle or handed out
	inUse     int           // handed out
	opening   int           // being opened: by an acquire, a refill or a Resize
	refilling int           // the part of opening that refills open in the background
	closed    bool
	settled   time.Time      // when open last came down to max after a Resize
	bg        sync.WaitGroup // refills
}

// idleConn is a connection given back at since.
type idleConn[C any] struct {
	c     C
	since occupancy.Stamp
}

// handed is what a waiting acquire receives: a connection, or why none.
type handed[C any] struct {
	c   C
	err error
}

// NewPool returns an empty pool that opens connections with dial (which
// should also check that the new connection answers) and closes them with
// close. Resize fills it.
func NewPool[C any](dial func(ctx context.Context) (C, error), close func(C)) *Pool[C] {
	return &Pool[C]{dial: dial, close: close}
}

// Acquire hands out an idle connection, opens one when there is room below
// max and nobody waits, or waits first come first served for one given
// back. It returns how long the connection sat idle (0 for a new one), for
// a store that checks connections idle for long.
func (p *Pool[C]) Acquire(ctx context.Context) (c C, idle time.Duration, err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return c, 0, ErrPoolClosed
	}
	if n := len(p.idle); n > 0 {
		ic := p.idle[n-1]
		p.idle[n-1] = idleConn[C]{}
		p.idle = p.idle[:n-1]
		p.inUse++
		p.mu.Unlock()
		return ic.c, occupancy.Since(ic.since), nil
	}
	if p.open+p.opening < p.max && p.waiters.Len() == 0 {
		p.opening++
		p.mu.Unlock()
		return p.openFor(ctx)
	}
	ch := make(chan handed[C], 1)
	e := p.waiters.PushBack(ch)
	p.mu.Unlock()
	select {
	case h := <-ch:
		return h.c, 0, h.err
	case <-ctx.Done():
	}
	p.mu.Lock()
	select {
	case h := <-ch: // handed one just as the wait ended: give it back
		p.mu.Unlock()
		if h.err == nil {
			p.Release(h.c, false)
		}
	default:
		p.waiters.Remove(e)
		p.mu.Unlock()
	}
	return c, 0, ctx.Err()
}

// openFor opens a connection for the acquire that counted it in opening.
func (p *Pool[C]) openFor(ctx context.Context) (C, time.Duration, error) {
	c, err := p.dial(ctx)
	p.mu.Lock()
	p.opening--
	if err != nil {
		p.refillLocked() // the room it took may serve a waiter
		p.mu.Unlock()
		return c, 0, err
	}
	if p.closed {
		p.mu.Unlock()
		p.close(c)
		var zero C
		return zero, 0, ErrPoolClosed
	}
	p.open++
	p.inUse++
	p.mu.Unlock()
	return c, 0, nil
}

// Release gives back a connection Acquire handed out. A broken one, one
// above the maximum (the pool shrank) and every one after Close is closed;
// any other goes to the first waiting acquire, or becomes idle.
func (p *Pool[C]) Release(c C, broken bool) {
	p.mu.Lock()
	p.inUse--
	if broken || p.closed || p.open > p.max {
		drained := !p.closed && p.open == p.max+1 // the last one above max
		p.open--
		if drained {
			p.settled = time.Now()
		}
		if !p.closed {
			p.refillLocked() // a broken one may leave the pool below min
		}
		p.mu.Unlock()
		p.close(c)
		return
	}
	p.putLocked(c)
	p.mu.Unlock()
}

// putLocked hands c to the first waiting acquire, or keeps it idle.
func (p *Pool[C]) putLocked(c C) {
	if e := p.waiters.Front(); e != nil {
		ch := p.waiters.Remove(e).(chan handed[C])
		p.inUse++
		ch <- handed[C]{c: c}
		return
	}
	p.idle = append(p.idle, idleConn[C]{c: c, since: occupancy.Now()})
}

// refillLocked opens connections in the background: up to min, and one for
// each waiting acquire that no open under way will serve, while there is
// room below max.
func (p *Pool[C]) refillLocked() {
	total := p.open + p.opening
	n := min(p.waiters.Len()-p.refilling, p.max-total)
	n = max(n, p.min-total)
	for range n {
		p.opening++
		p.refilling++
		p.bg.Add(1)
		go p.refill()
	}
}

// refill opens one connection and hands it to the first waiting acquire,
// or keeps it idle. When the open fails the first waiting acquire gets the
// error, as pgxpool's acquire that started an open does, so that acquires
// do not wait for their deadline on a database that is gone.
func (p *Pool[C]) refill() {
	defer p.bg.Done()
	ctx, cancel := context.WithTimeout(context.Background(), refillTimeout)
	c, err := p.dial(ctx)
	cancel()
	p.mu.Lock()
	p.opening--
	p.refilling--
	switch {
	case err != nil:
		if e := p.waiters.Front(); e != nil {
			p.waiters.Remove(e).(chan handed[C]) <- handed[C]{err: err}
			p.refillLocked() // the next waiter tries again
		}
	case p.closed:
		p.mu.Unlock()
		p.close(c)
		return
	default:
		p.open++
		p.putLocked(c)
	}
	p.mu.Unlock()
}

// Resize sets the pool to keep at least minConns open and hand out at
// most maxConns (1 <= minConns <= maxConns). When fewer than minConns are
// open it first opens the difference, with dial's check, in parallel under
// ctx, and only then lets acquires take them: the first waiting acquires
// get them, the rest become idle. When that fails nothing changes and the
// error says why. Idle connections above maxConns are closed at once, the
// ones in use when they are given back; until then Draining counts them
// and acquires wait, so that the pool never hands out more than maxConns
// beyond those it already had out. The Pool's Settled says when it last
// came within its sizes.
func (p *Pool[C]) Resize(ctx context.Context, minConns, maxConns int) error {
	if minConns < 1 || maxConns < minConns {
		return fmt.Errorf("resize pool to %d..%d: want 1 <= min <= max", minConns, maxConns)
	}
	p.resizing.Lock()
	defer p.resizing.Unlock()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrPoolClosed
	}
	need := max(0, minConns-(p.open+p.opening))
	p.opening += need
	p.mu.Unlock()

	conns, err := p.prewarm(ctx, need)
	p.mu.Lock()
	p.opening -= need
	if err == nil && p.closed {
		err = ErrPoolClosed
	}
	if err != nil {
		p.refillLocked()
		p.mu.Unlock()
		for _, c := range conns {
			p.close(c)
		}
		return err
	}
	p.min, p.max = minConns, maxConns
	p.open += len(conns)
	for _, c := range conns {
		p.putLocked(c)
	}
	var surplus []C
	for p.open > p.max && len(p.idle) > 0 {
		surplus = append(surplus, p.idle[0].c) // the longest idle first
		p.idle[0] = idleConn[C]{}
		p.idle = p.idle[1:]
		p.open--
	}
	if p.open <= p.max {
		p.settled = time.Now()
	}
	p.refillLocked() // a pool between min and max may now open for waiters
	p.mu.Unlock()
	for _, c := range surplus {
		p.close(c)
	}
	return nil
}

// prewarm opens n connections, at most prewarmParallel at once. On the
// first failure it stops and returns those it opened with the error.
func (p *Pool[C]) prewarm(ctx context.Context, n int) ([]C, error) {
	if n == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		conns = make([]C, 0, n)
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, prewarmParallel)
	)
	for i := range n {
		slots <- struct{}{}
		if ctx.Err() != nil {
			<-slots
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			c, err := p.dial(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = fmt.Errorf("open connection %d of %d: %w", i+1, n, err)
					cancel()
				}
				return
			}
			conns = append(conns, c)
		})
	}
	wg.Wait()
	if first == nil && len(conns) < n {
		first = fmt.Errorf("opened %d of %d connections: %w", len(conns), n, ctx.Err())
	}
	return conns, first
}

// Fill copies the pool's sizes and states into s: Size, Min and Mode
// ("fixed" when min = max, else "grow"), Open (the connections open or
// being opened), InUse, Idle and Opening, Draining and Settled.
func (p *Pool[C]) Fill(s *entity.PoolStats) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s.Size, s.Min, s.Mode = p.max, p.min, "fixed"
	if p.min < p.max {
		s.Mode = "grow"
	}
	s.Open = p.open + p.opening
	s.InUse, s.Idle, s.Opening = p.inUse, len(p.idle), p.opening
	s.Draining = max(0, p.open-p.max)
	s.Settled = p.settled
}

// Close closes the idle connections now and the others as they are given
// back; waiting acquires and later ones fail with ErrPoolClosed. It
// returns once the background opens have ended.
func (p *Pool[C]) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.open -= len(idle)
	for e := p.waiters.Front(); e != nil; e = p.waiters.Front() {
		p.waiters.Remove(e).(chan handed[C]) <- handed[C]{err: ErrPoolClosed}
	}
	p.mu.Unlock()
	for _, ic := range idle {
		p.close(ic.c)
	}
	p.bg.Wait()
}
