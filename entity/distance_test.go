package entity

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestJitterDraws draws many waits with a fixed seed: they stay within
// latency ± jitter, spread over the whole of it around the latency, repeat
// with the same seed, and never fall below 0.
func TestJitterDraws(t *testing.T) {
	const lat, jit = 10 * time.Millisecond, 4 * time.Millisecond
	d := newDistance(Distance{Latency: lat, Jitter: jit, Seed: 42})
	const n = 20000
	var sum float64
	lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
	draws := make([]time.Duration, n)
	for i := range n {
		w := d.draw()
		draws[i] = w
		sum += float64(w)
		lo, hi = min(lo, w), max(hi, w)
	}
	if lo < lat-jit || hi > lat+jit {
		t.Errorf("draws span %v..%v; want within %v..%v", lo, hi, lat-jit, lat+jit)
	}
	if lo > lat-jit+jit/20 || hi < lat+jit-jit/20 {
		t.Errorf("draws span %v..%v; want nearly all of %v..%v", lo, hi, lat-jit, lat+jit)
	}
	if mean := time.Duration(sum / n); mean < lat-jit/20 || mean > lat+jit/20 {
		t.Errorf("mean draw %v; want about %v", mean, lat)
	}
	again := newDistance(Distance{Latency: lat, Jitter: jit, Seed: 42})
	for i := range 100 {
		if w := again.draw(); w != draws[i] {
			t.Fatalf("draw %d with the same seed = %v; want %v", i, w, draws[i])
		}
	}
	wide := newDistance(Distance{Latency: time.Millisecond, Jitter: 5 * time.Millisecond, Seed: 1})
	zeros := 0
	for range 1000 {
		w := wide.draw()
		if w < 0 {
			t.Fatalf("draw = %v; want never below 0", w)
		}
		if w == 0 {
			zeros++
		}
	}
	if zeros == 0 {
		t.Errorf("jitter above latency drew no 0 in 1000; want the negative draws clamped to 0")
	}
	if newDistance(Distance{}) != nil {
		t.Errorf("newDistance(zero) is not nil; want nothing added")
	}
}

// testDistance is the database-at-a-distance part of the Store contract.
func testDistance(t *testing.T, open func(t *testing.T, o Options) Store) {
	ctx := context.Background()
	const lat = 25 * time.Millisecond
	const conn = 40 * time.Millisecond

	t.Run("StatementLatency", func(t *testing.T) {
		t.Parallel()
		var trace syncBuffer
		s := open(t, Options{Pool: 2, SeedPosts: 5, Distance: Distance{Latency: lat}, Trace: &trace})
		before := s.Stats()
		c := acquire(t, s)
		start := time.Now()
		if _, err := c.Before(ctx, MaxNo); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if _, err := c.Newest(ctx, 3); err != nil {
			t.Fatal(err)
		}
		waited := c.Waited()
		c.Release()
		if took < lat {
			t.Errorf("one statement took %v; want at least db_latency %v", took, lat)
		}
		if waited < 2*lat {
			t.Errorf("Waited after 2 statements = %v; want at least %v", waited, 2*lat)
		}
		st := s.Stats()
		if got := st.NetworkWait - before.NetworkWait; got < 2*lat || got != waited {
			t.Errorf("Stats network wait grew %v; want the Conn's %v (at least %v)", got, waited, 2*lat)
		}
		if got := st.NetworkWaits - before.NetworkWaits; got != 2 {
			t.Errorf("Stats network round trips grew %d; want 2", got)
		}
		lines := traceLines(t, trace.String())
		if len(lines) != 2 {
			t.Fatalf("trace has %d lines; want 2:\n%s", len(lines), trace.String())
		}
		for _, l := range lines {
			if l.NetworkWait < lat.Seconds() || l.QueryTime < l.NetworkWait {
				t.Errorf("trace line %+v: want network_wait >= %v within query_time", l, lat.Seconds())
			}
		}
	})

	t.Run("StatementStopsWithContext", func(t *testing.T) {
		t.Parallel()
		s := open(t, Options{Pool: 1, Distance: Distance{Latency: 5 * time.Second}})
		c := acquire(t, s)
		defer c.Release()
		cctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.Before(cctx, MaxNo)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Before past its deadline = %v; want DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Before past a 30ms deadline took %v; want it to stop waiting", d)
		}
	})

	t.Run("ConnectLatencyPoolFill", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		s := open(t, Options{Pool: 3, Distance: Distance{Connect: conn}})
		took := time.Since(start)
		st := s.Stats()
		if st.Opened < 3 || st.ConnectWait < time.Duration(st.Opened)*conn {
			t.Errorf("after filling a pool of 3: opened %d, connect wait %v; want >= 3 opened, each waiting %v", st.Opened, st.ConnectWait, conn)
		}
		if took < conn {
			t.Errorf("Open took %v; want at least one connect latency %v", took, conn)
		}
		// A pooled acquire opens nothing and waits nothing more.
		c := acquire(t, s)
		c.Release()
		if got := s.Stats(); got.ConnectWait != st.ConnectWait {
			t.Errorf("pooled acquire added connect wait %v; want none", got.ConnectWait-st.ConnectWait)
		}
	})

	t.Run("ConnectLatencyModeNone", func(t *testing.T) {
		t.Parallel()
		s := open(t, Options{Pool: 2, PoolMode: PoolNone, Distance: Distance{Connect: conn}})
		before := s.Stats()
		for i := range 3 {
			start := time.Now()
			c := acquire(t, s)
			if d := time.Since(start); d < conn {
				t.Errorf("acquire %d in mode none took %v; want at least connect_latency %v", i, d, conn)
			}
			c.Release()
		}
		st := s.Stats()
		if got := st.ConnectWait - before.ConnectWait; got < 3*conn {
			t.Errorf("3 acquires in mode none added connect wait %v; want at least %v", got, 3*conn)
		}
	})

	t.Run("ConnectLatencyGrowth", func(t *testing.T) {
		t.Parallel()
		s := open(t, Options{Pool: 3, PoolMin: 1, Distance: Distance{Connect: conn}})
		before := s.Stats()
		var held []Conn
		for range 3 {
			held = append(held, acquire(t, s))
		}
		for _, c := range held {
			c.Release()
		}
		st := s.Stats()
		grown := st.Opened - before.Opened
		if grown < 2 {
			t.Fatalf("holding 3 of a pool growing from 1 opened %d; want 2", grown)
		}
		if got := st.ConnectWait - before.ConnectWait; got < time.Duration(grown)*conn {
			t.Errorf("growth by %d connections added connect wait %v; want at least %v each", grown, got, conn)
		}
	})

	t.Run("NetworkWaitFrame", func(t *testing.T) {
		t.Parallel()
		s := open(t, Options{Pool: 1, SeedPosts: 5, Distance: Distance{Latency: 2 * time.Second}})
		c := acquire(t, s)
		defer c.Release()
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.Before(cctx, MaxNo)
		}()
		var dump string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			var b bytes.Buffer
			pprof.Lookup("goroutine").WriteTo(&b, 1)
			if dump = b.String(); strings.Contains(dump, "bbslab/entity.networkWait+") {
				break
			}
		}
		cancel()
		<-done
		if !strings.Contains(dump, "bbslab/entity.networkWait+") {
			t.Errorf("no goroutine in entity.networkWait while a statement waited on the network")
		}
	})
}

// testOccupancy checks the time integrals of the pool: n connections held
// for a known time read back n as the mean over it.
func testOccupancy(t *testing.T, open func(t *testing.T, o Options) Store) {
	t.Run("InUseSeconds", func(t *testing.T) {
		t.Parallel()
		const n = 3
		const hold = 150 * time.Millisecond
		s := open(t, Options{Pool: n})
		before := s.Stats()
		t0 := time.Now()
		var held []Conn
		for range n {
			held = append(held, acquire(t, s))
		}
		time.Sleep(hold)
		mid := s.Stats()
		span := time.Since(t0)
		for _, c := range held {
			c.Release()
		}
		mean := float64(mid.InUseTime-before.InUseTime) / float64(span)
		if mean > n+0.01 || mean < n*0.9 {
			t.Errorf("mean connections in use while %d held = %.3f; want about %d", n, mean, n)
		}
		after := s.Stats()
		if after.InUseTime < mid.InUseTime || after.InUse != 0 {
			t.Errorf("after release: in use %d, in-use time %v (was %v); want 0 and not less", after.InUse, after.InUseTime, mid.InUseTime)
		}
	})

	t.Run("WaitingSeconds", func(t *testing.T) {
		t.Parallel()
		s := open(t, Options{Pool: 1})
		c := acquire(t, s)
		before := s.Stats()
		var wg sync.WaitGroup
		const waiters = 2
		for range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				if c, err := s.Acquire(cctx); err == nil {
					c.Release()
				}
			}()
		}
		wg.Wait()
		c.Release()
		got := s.Stats().WaitingTime - before.WaitingTime
		if got < waiters*100*time.Millisecond {
			t.Errorf("%d acquires that waited 100ms and failed added %v waiting time; want at least %v", waiters, got, waiters*100*time.Millisecond)
		}
	})
}

// syncBuffer is a bytes.Buffer safe for the tracer's writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func traceLines(t *testing.T, s string) []traceLine {
	t.Helper()
	var out []traceLine
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		var l traceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}
