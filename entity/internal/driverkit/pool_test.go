package driverkit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"bbslab/entity"
)

// testConn is a connection of a testDialer.
type testConn struct {
	id     int
	warm   bool // opened and checked
	closed atomic.Bool
}

// testDialer opens testConns, counting them, and fails the open numbered
// failAt (from 1) when it is set.
type testDialer struct {
	mu      sync.Mutex
	opened  int
	closed  atomic.Int64
	failAt  int
	delay   time.Duration
	made    atomic.Int64 // opens that succeeded
	handout atomic.Int64 // connections handed out and not given back
}

func (d *testDialer) dial(ctx context.Context) (*testConn, error) {
	d.mu.Lock()
	d.opened++
	n := d.opened
	d.mu.Unlock()
	if n == d.failAt {
		return nil, errors.New("connection refused")
	}
	select {
	case <-time.After(d.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	d.made.Add(1)
	return &testConn{id: n, warm: true}, nil
}

func (d *testDialer) close(c *testConn) {
	if c.closed.Swap(true) {
		panic("connection closed twice")
	}
	d.closed.Add(1)
}

func (d *testDialer) openedCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.opened
}

func newTestPool(t *testing.T, d *testDialer, minConns, maxConns int) *Pool[*testConn] {
	t.Helper()
	p := NewPool(d.dial, d.close)
	if err := p.Resize(context.Background(), minConns, maxConns); err != nil {
		t.Fatalf("fill %d..%d: %v", minConns, maxConns, err)
	}
	t.Cleanup(p.Close)
	return p
}

func stats(p *Pool[*testConn]) entity.PoolStats {
	var s entity.PoolStats
	p.Fill(&s)
	return s
}

func waiting(p *Pool[*testConn]) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiters.Len()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// load runs n goroutines that acquire, hold for hold and release until
// stop is closed; check sees each acquired connection and the number
// handed out at that moment. It returns the acquires' errors.
func load(p *Pool[*testConn], d *testDialer, n int, hold time.Duration, stop chan struct{}, check func(c *testConn, out int64)) func() []error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, _, err := p.Acquire(context.Background())
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				check(c, d.handout.Add(1))
				time.Sleep(hold)
				d.handout.Add(-1)
				p.Release(c, false)
			}
		})
	}
	return func() []error { wg.Wait(); return errs }
}

// TestPoolResizeUnderLoad grows a pool of 2 to 6 and shrinks it to 3
// while eight goroutines keep every connection busy and the rest waiting:
// growing opens exactly the 4 new connections, each checked before it is
// handed out; shrinking closes 3 and opens none; no acquire fails; and
// once the drain is over no more than 3 are ever handed out.
func TestPoolResizeUnderLoad(t *testing.T) {
	d := &testDialer{delay: 2 * time.Millisecond}
	p := newTestPool(t, d, 2, 2)
	var limit atomic.Int64
	limit.Store(2)
	var over atomic.Int64
	stop := make(chan struct{})
	wait := load(p, d, 8, time.Millisecond, stop, func(c *testConn, out int64) {
		if !c.warm || c.closed.Load() {
			t.Errorf("handed out connection %d: warm %v, closed %v; want a checked, open one", c.id, c.warm, c.closed.Load())
		}
		if out > limit.Load() {
			over.Store(out)
		}
	})
	waitFor(t, "acquires waiting", func() bool { return waiting(p) > 0 })

	if err := p.Resize(context.Background(), 6, 6); err != nil {
		t.Fatalf("Resize(6, 6): %v", err)
	}
	limit.Store(6)
	if st := stats(p); st.Size != 6 || st.Min != 6 || st.Open != 6 || st.Draining != 0 || st.Mode != "fixed" || d.openedCount() != 6 {
		t.Errorf("after growing to 6: %+v, %d opened; want size, min and open 6, 6 opened in all", st, d.openedCount())
	}
	waitFor(t, "6 connections handed out", func() bool { return d.handout.Load() == 6 })

	shrunk := time.Now()
	if err := p.Resize(context.Background(), 3, 3); err != nil {
		t.Fatalf("Resize(3, 3): %v", err)
	}
	waitFor(t, "the drain", func() bool { st := stats(p); return st.Draining == 0 && !st.Settled.Before(shrunk) })
	over.Store(0)
	limit.Store(3)
	time.Sleep(50 * time.Millisecond)
	close(stop)
	if errs := wait(); len(errs) > 0 {
		t.Errorf("acquires failed under resizing: %v", errs)
	}
	if o := over.Load(); o > 0 {
		t.Errorf("%d connections handed out after the drain; want at most 3", o)
	}
	if st := stats(p); st.Open != 3 || st.Idle != 3 || st.InUse != 0 || d.openedCount() != 6 || d.closed.Load() != 3 {
		t.Errorf("after shrinking to 3: %+v, %d opened, %d closed; want 3 open and idle, 6 opened, 3 closed", st, d.openedCount(), d.closed.Load())
	}
}

// TestPoolResizeShrinkDrains shrinks a pool whose every connection is
// handed out: the acquires that come meanwhile wait rather than get more,
// each connection given back above the new size is closed, and the pool
// settles when the last one is.
func TestPoolResizeShrinkDrains(t *testing.T) {
	d := &testDialer{}
	p := newTestPool(t, d, 4, 4)
	held := make([]*testConn, 4)
	for i := range held {
		held[i], _, _ = p.Acquire(context.Background())
	}
	before := time.Now()
	if err := p.Resize(context.Background(), 2, 2); err != nil {
		t.Fatal(err)
	}
	if st := stats(p); st.Draining != 2 || st.Settled.After(before) {
		t.Fatalf("shrunk with 4 in use: %+v; want 2 draining, not settled", st)
	}
	got := make(chan *testConn)
	go func() { c, _, _ := p.Acquire(context.Background()); got <- c }()
	waitFor(t, "an acquire waiting", func() bool { return waiting(p) == 1 })
	p.Release(held[0], false)
	p.Release(held[1], false)
	if !held[0].closed.Load() || !held[1].closed.Load() {
		t.Errorf("the 2 given back above the new size: closed %v, %v; want both closed", held[0].closed.Load(), held[1].closed.Load())
	}
	if st := stats(p); st.Draining != 0 || !st.Settled.After(before) || st.InUse != 2 || waiting(p) != 1 {
		t.Errorf("after the drain: %+v, %d waiting; want settled, 2 in use, the acquire still waiting", st, waiting(p))
	}
	p.Release(held[2], false)
	if c := <-got; c != held[2] {
		t.Errorf("the waiting acquire got connection %d; want %d, the one given back", c.id, held[2].id)
	}
	if held[2].closed.Load() {
		t.Error("a connection handed on was closed")
	}
}

// TestPoolResizeFailsWhole makes the third of four new connections fail:
// the pool keeps its sizes and closes the ones it opened.
func TestPoolResizeFailsWhole(t *testing.T) {
	d := &testDialer{}
	p := newTestPool(t, d, 2, 2)
	d.failAt = 5 // the third new one
	err := p.Resize(context.Background(), 6, 6)
	if err == nil {
		t.Fatalf("Resize with a failing open = %v; want an error", err)
	}
	st := stats(p)
	if st.Size != 2 || st.Min != 2 || st.Open != 2 || st.Opening != 0 {
		t.Errorf("after a failed Resize: %+v; want size, min and open 2 as before", st)
	}
	if want := d.made.Load() - 2; d.closed.Load() != want {
		t.Errorf("closed %d; want the %d new ones that opened", d.closed.Load(), want)
	}
	for _, bad := range [][2]int{{0, 2}, {3, 2}, {-1, -1}} {
		if err := p.Resize(context.Background(), bad[0], bad[1]); err == nil {
			t.Errorf("Resize(%d, %d) = nil; want an error", bad[0], bad[1])
		}
	}
	if st := stats(p); st.Size != 2 || st.Open != 2 {
		t.Errorf("after bad Resizes: %+v; want unchanged", st)
	}
}

// TestPoolGrowApart sets min below max: nothing is opened until acquires
// need it, then each opens one on its own time; a broken connection is
// replaced up to min in the background.
func TestPoolGrowApart(t *testing.T) {
	d := &testDialer{}
	p := newTestPool(t, d, 2, 2)
	if err := p.Resize(context.Background(), 1, 4); err != nil {
		t.Fatal(err)
	}
	if st := stats(p); st.Open != 2 || st.Mode != "grow" || d.openedCount() != 2 {
		t.Fatalf("min 1 max 4 from 2 open: %+v; want the 2 kept, mode grow", st)
	}
	var held []*testConn
	for range 4 {
		c, _, err := p.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	if d.openedCount() != 4 {
		t.Errorf("4 acquires of a pool of 2 growing to 4 opened %d in all; want 4", d.openedCount())
	}
	for _, c := range held[1:] {
		p.Release(c, false)
	}
	p.Release(held[0], true)
	if st := stats(p); st.Open != 3 || !held[0].closed.Load() {
		t.Errorf("after a broken release: %+v; want it closed and 3 open (above min 1)", st)
	}
	if err := p.Resize(context.Background(), 5, 5); err != nil {
		t.Fatal(err)
	}
	c, _, _ := p.Acquire(context.Background())
	p.Release(c, true)
	waitFor(t, "the refill to min 5", func() bool { st := stats(p); return st.Open == 5 && st.Opening == 0 })
}

// TestPoolClose fails the waiting acquires and later ones, closes the
// idle connections at once and a handed-out one when given back.
func TestPoolClose(t *testing.T) {
	d := &testDialer{}
	p := newTestPool(t, d, 2, 2)
	a, _, _ := p.Acquire(context.Background())
	b, _, _ := p.Acquire(context.Background())
	errc := make(chan error)
	go func() { _, _, err := p.Acquire(context.Background()); errc <- err }()
	waitFor(t, "an acquire waiting", func() bool { return waiting(p) == 1 })
	p.Release(b, false) // handed to the waiter
	go func() { _, _, err := p.Acquire(context.Background()); errc <- err }()
	waitFor(t, "an acquire waiting", func() bool { return waiting(p) == 1 })
	p.Close()
	if err := <-errc; err != nil && !errors.Is(err, ErrPoolClosed) {
		t.Errorf("the first waiter: %v", err)
	}
	if err := <-errc; !errors.Is(err, ErrPoolClosed) {
		t.Errorf("a waiting acquire at Close: %v; want ErrPoolClosed", err)
	}
	p.Release(a, false)
	if !a.closed.Load() {
		t.Error("a connection given back after Close stayed open")
	}
	if _, _, err := p.Acquire(context.Background()); !errors.Is(err, ErrPoolClosed) {
		t.Errorf("Acquire after Close: %v; want ErrPoolClosed", err)
	}
	if err := p.Resize(context.Background(), 1, 1); !errors.Is(err, ErrPoolClosed) {
		t.Errorf("Resize after Close: %v; want ErrPoolClosed", err)
	}
}

// TestPoolAcquireCanceled leaves the queue when its context ends, and a
// connection handed to it as it does goes to the next one.
func TestPoolAcquireCanceled(t *testing.T) {
	d := &testDialer{}
	p := newTestPool(t, d, 1, 1)
	a, _, _ := p.Acquire(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := p.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire past its deadline: %v", err)
	}
	if waiting(p) != 0 {
		t.Errorf("%d waiting after the deadline; want 0", waiting(p))
	}
	p.Release(a, false)
	if st := stats(p); st.Idle != 1 || st.InUse != 0 {
		t.Errorf("after release: %+v; want 1 idle", st)
	}
}
