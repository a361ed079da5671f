package storetest

import (
	"bbslab/entity"
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

// testDistance is the database-at-a-distance part of the entity.Store contract.
func testDistance(t *testing.T, open func(t *testing.T, o entity.Options) entity.Store) {
	ctx := context.Background()
	const lat = 25 * time.Millisecond
	const conn = 40 * time.Millisecond

	t.Run("StatementLatency", func(t *testing.T) {
		t.Parallel()
		var trace syncBuffer
		s := open(t, entity.Options{Pool: 2, SeedPosts: 5, Distance: entity.Distance{Latency: lat}, Trace: &trace})
		before := s.Stats()
		c := Acquire(t, s)
		start := time.Now()
		if _, err := c.Before(ctx, entity.MaxNo); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if _, err := c.Newest(ctx, 3); err != nil {
			t.Fatal(err)
		}
		waited, inSQL := c.NetworkWait(), c.SQLTime()
		c.Release()
		if took < lat {
			t.Errorf("one statement took %v; want at least db_latency %v", took, lat)
		}
		if waited < 2*lat || inSQL < waited {
			t.Errorf("after 2 statements NetworkWait = %v, SQLTime = %v; want at least %v, within SQLTime", waited, inSQL, 2*lat)
		}
		st := s.Stats()
		if got := st.NetworkWait - before.NetworkWait; got < 2*lat || got != waited {
			t.Errorf("Stats network wait grew %v; want the entity.Conn's %v (at least %v)", got, waited, 2*lat)
		}
		if got := st.NetworkWaits - before.NetworkWaits; got != 2 {
			t.Errorf("Stats network round trips grew %d; want 2", got)
		}
		lines := traceLines(t, trace.String())
		if len(lines) != 2 {
			t.Fatalf("trace has %d lines; want 2:\n%s", len(lines), trace.String())
		}
		var queryTime, networkWait float64
		for _, l := range lines {
			if l.NetworkWait < lat.Seconds() || l.QueryTime < l.NetworkWait {
				t.Errorf("trace line %+v: want network_wait >= %v within query_time", l, lat.Seconds())
			}
			queryTime += l.QueryTime
			networkWait += l.NetworkWait
		}
		// The trace reads the Conn's figures: its seconds, summed, are
		// SQLTime and NetworkWait to the nanosecond.
		if ns := func(sec float64) time.Duration { return time.Duration(math.Round(sec * 1e9)) }; ns(queryTime) != inSQL || ns(networkWait) != waited {
			t.Errorf("trace query_time sum %v s, network_wait sum %v s; want the Conn's SQLTime %v and NetworkWait %v", queryTime, networkWait, inSQL, waited)
		}
	})

	t.Run("StatementStopsWithContext", func(t *testing.T) {
		t.Parallel()
		s := open(t, entity.Options{Pool: 1, Distance: entity.Distance{Latency: 5 * time.Second}})
		c := Acquire(t, s)
		defer c.Release()
		cctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.Before(cctx, entity.MaxNo)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Before past its deadline = %v; want DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Before past a 30ms deadline took %v; want it to stop waiting", d)
		}
	})

	testConnectLatency(t, open)
}

// testConnectLatency is the rest of testDistance.
func testConnectLatency(t *testing.T, open func(t *testing.T, o entity.Options) entity.Store) {
	ctx := context.Background()
	const lat = 25 * time.Millisecond
	const conn = 40 * time.Millisecond

	t.Run("ConnectLatencyPoolFill", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		s := open(t, entity.Options{Pool: 3, Distance: entity.Distance{Connect: conn}})
		took := time.Since(start)
		st := s.Stats()
		if st.Opened < 3 || st.ConnectWait < time.Duration(st.Opened)*conn {
			t.Errorf("after filling a pool of 3: opened %d, connect wait %v; want >= 3 opened, each waiting %v", st.Opened, st.ConnectWait, conn)
		}
		if took < conn {
			t.Errorf("Open took %v; want at least one connect latency %v", took, conn)
		}
		// A pooled acquire opens nothing and waits nothing more.
		c := Acquire(t, s)
		c.Release()
		if got := s.Stats(); got.ConnectWait != st.ConnectWait {
			t.Errorf("pooled acquire added connect wait %v; want none", got.ConnectWait-st.ConnectWait)
		}
	})

	t.Run("ConnectLatencyModeNone", func(t *testing.T) {
		t.Parallel()
		s := open(t, entity.Options{Pool: 2, PoolMode: entity.PoolNone, Distance: entity.Distance{Connect: conn}})
		before := s.Stats()
		for i := range 3 {
			start := time.Now()
			c := Acquire(t, s)
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
		s := open(t, entity.Options{Pool: 3, PoolMin: 1, Distance: entity.Distance{Connect: conn}})
		before := s.Stats()
		var held []entity.Conn
		for range 3 {
			held = append(held, Acquire(t, s))
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
		s := open(t, entity.Options{Pool: 1, SeedPosts: 5, Distance: entity.Distance{Latency: 2 * time.Second}})
		c := Acquire(t, s)
		defer c.Release()
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.Before(cctx, entity.MaxNo)
		}()
		var dump string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			var b bytes.Buffer
			pprof.Lookup("goroutine").WriteTo(&b, 1)
			if dump = b.String(); strings.Contains(dump, "bbslab/entity/internal/driverkit.networkWait+") {
				break
			}
		}
		cancel()
		<-done
		if !strings.Contains(dump, "bbslab/entity/internal/driverkit.networkWait+") {
			t.Errorf("no goroutine in driverkit.networkWait while a statement waited on the network")
		}
	})
}

// testOccupancy checks the time integrals of the pool: n connections held
// for a known time read back n as the mean over it.
func testOccupancy(t *testing.T, open func(t *testing.T, o entity.Options) entity.Store) {
	t.Run("InUseSeconds", func(t *testing.T) {
		t.Parallel()
		const n = 3
		const hold = 150 * time.Millisecond
		s := open(t, entity.Options{Pool: n})
		before := s.Stats()
		t0 := time.Now()
		var held []entity.Conn
		for range n {
			held = append(held, Acquire(t, s))
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
		s := open(t, entity.Options{Pool: 1})
		c := Acquire(t, s)
		before := s.Stats()
		// The waiters give up when cancel is called, and it is called only
		// once both are seen waiting, 100 ms later: each wait then spans
		// at least those 100 ms however late a busy machine ran the
		// goroutines. (A timeout taken in each goroutine let a waiter that
		// lost the CPU before its wait began record less: 196 ms of the
		// 200 at load average 13.)
		const waiters = 2
		const hold = 100 * time.Millisecond
		cctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var wg sync.WaitGroup
		for range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if c, err := s.Acquire(cctx); err == nil {
					c.Release()
				}
			}()
		}
		deadline := time.Now().Add(10 * time.Second) // generous: goroutines start in microseconds
		for s.Stats().Waiting < waiters {
			if time.Now().After(deadline) {
				cancel()
				wg.Wait()
				t.Fatalf("after 10 s, %d acquires waiting; want %d", s.Stats().Waiting, waiters)
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(hold)
		cancel()
		wg.Wait()
		c.Release()
		got := s.Stats().WaitingTime - before.WaitingTime
		if got < waiters*hold {
			t.Errorf("%d acquires that waited %v and failed added %v waiting time; want at least %v", waiters, hold, got, waiters*hold)
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

// traceLine is the part of an SQL trace line (entity.Options.Trace) the tests read.
type traceLine struct {
	QueryTime   float64 `json:"query_time"`
	NetworkWait float64 `json:"network_wait"`
	Statement   string  `json:"statement"`
}

// traceLines decodes the trace lines in s.
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
