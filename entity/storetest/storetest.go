// Package storetest is the contract suite every entity.Store must pass, as
// Go's testing/fstest checks an fs.FS:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, o entity.Options) entity.Store { return openFresh(t, o) })
//	}
//
// Run runs it, where the function given opens a fresh store with the
// options a test needs. entity/sqlite runs it on a SQLite file in a temp
// dir always, and entity/postgres on the server BBS_TEST_POSTGRES_DSN names
// (skipped with a message when it is unset), each test in a schema of its
// own.
package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"bbslab/entity"
)

// An Opener returns a fresh, empty-then-seeded store for o (Driver and DSN
// filled in by it) and closes it when the test ends.
type Opener = func(t *testing.T, o entity.Options) entity.Store

// Run runs the contract every entity.Store implementation must meet, its
// parts as parallel subtests, on the stores open returns.
func Run(t *testing.T, open Opener) {
	t.Run("Seed", func(t *testing.T) { testSeed(t, open) })
	t.Run("NewestEqualsBefore", func(t *testing.T) { testNewestEqualsBefore(t, open) })
	t.Run("Insert", func(t *testing.T) { testInsert(t, open) })
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, open) })
	t.Run("Reset", func(t *testing.T) { testReset(t, open) })
	t.Run("Reset100k", func(t *testing.T) { testReset100k(t, open) })
	t.Run("FixedPool", func(t *testing.T) { testFixedPool(t, open) })
	t.Run("ModeNone", func(t *testing.T) { testModeNone(t, open) })

	// Under contention (more goroutines than connections) every acquire
	// must still open a connection of its own: a released connection handed
	// straight to a waiting acquire would be a pool, however briefly.
	t.Run("ModeNoneContended", func(t *testing.T) { testModeNoneContended(t, open) })
	t.Run("Grow", func(t *testing.T) { testGrow(t, open) })
	testModes(t, open)

	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, open) })

	// Open, InUse, Idle and Opening are read together: the last three are
	// disjoint states of the connections that Open counts (the board's
	// bbs_db_pool_connections{state} adds up to the open connections).
	testModesConcurrent(t, open)

	t.Run("StatsInUse", func(t *testing.T) { testStatsInUse(t, open) })
	t.Run("PingAndClose", func(t *testing.T) { testPingAndClose(t, open) })

	testDistance(t, open) // distance.go
	testOccupancy(t, open)
	testValidate(t, open) // validate.go
	testResize(t, open)   // resize.go
}

// testSeed is the contract's Seed subtest.
func testSeed(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	s := open(t, entity.Options{Pool: 2, SeedPosts: 50})
	c := Acquire(t, s)
	defer c.Release()
	posts, err := c.Newest(ctx, 100)
	if err != nil {
		t.Fatalf("Newest(100): %v", err)
	}
	if len(posts) != 50 {
		t.Fatalf("Newest(100) gave %d posts; want 50", len(posts))
	}
	for i, p := range posts {
		checkPost(t, fmt.Sprintf("Newest(100)[%d]", i), p, entity.SeedPost(50-i))
	}
	p, err := c.Before(ctx, entity.MaxNo)
	if err != nil {
		t.Fatalf("Before(entity.MaxNo): %v", err)
	}
	checkPost(t, "Before(entity.MaxNo)", p, entity.SeedPost(50))
	if _, err := c.Before(ctx, 1); !errors.Is(err, entity.ErrNotFound) {
		t.Errorf("Before(1) error = %v; want entity.ErrNotFound", err)
	}
}

// testNewestEqualsBefore is the contract's NewestEqualsBefore subtest.
func testNewestEqualsBefore(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	s := open(t, entity.Options{Pool: 1, SeedPosts: 45})
	c := Acquire(t, s)
	defer c.Release()
	newest, err := c.Newest(ctx, 30)
	if err != nil {
		t.Fatalf("Newest(30): %v", err)
	}
	if len(newest) != 30 {
		t.Fatalf("Newest(30) gave %d posts; want 30", len(newest))
	}
	no := entity.MaxNo
	for i := range 30 {
		p, err := c.Before(ctx, no)
		if err != nil {
			t.Fatalf("Before(%d): %v", no, err)
		}
		checkPost(t, fmt.Sprintf("Before(%d)", no), p, newest[i])
		no = p.No
	}
}

// testInsert is the contract's Insert subtest.
func testInsert(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	s := open(t, entity.Options{Pool: 1, SeedPosts: 10})
	c := Acquire(t, s)
	defer c.Release()
	for want := int64(11); want <= 12; want++ {
		before := time.Now().UTC().Truncate(time.Microsecond)
		p, err := c.Insert(ctx, "tester", fmt.Sprintf("message %d", want))
		after := time.Now().UTC()
		if err != nil {
			t.Fatalf("Insert: %v", err)
		}
		if p.No != want {
			t.Errorf("Insert gave number %d; want %d", p.No, want)
		}
		if p.CreatedAt.Before(before) || p.CreatedAt.After(after) || p.CreatedAt.Location() != time.UTC ||
			!p.CreatedAt.Equal(p.CreatedAt.Truncate(time.Microsecond)) {
			t.Errorf("Insert time %v; want UTC microseconds in [%v, %v]", p.CreatedAt, before, after)
		}
		newest, err := c.Newest(ctx, 30)
		if err != nil {
			t.Fatalf("Newest(30): %v", err)
		}
		if len(newest) != 30 && len(newest) != int(want) {
			t.Fatalf("Newest(30) gave %d posts; want %d", len(newest), want)
		}
		checkPost(t, "Newest(30)[0] after Insert", newest[0], p)
	}
}

// testRoundTrip is the contract's RoundTrip subtest.
func testRoundTrip(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	s := open(t, entity.Options{Pool: 1})
	c := Acquire(t, s)
	defer c.Release()
	texts := []struct{ name, message string }{
		{"山田太郎", "こんにちは、世界。チューニングの話をしましょう。"},
		{"<script>alert(1)</script>", `<script>alert("x")</script> & 'quotes' \ backslash`},
		{"", "empty name, emoji 🎉, NUL-free\nnew line\ttab"},
	}
	for _, tt := range texts {
		p, err := c.Insert(ctx, tt.name, tt.message)
		if err != nil {
			t.Fatalf("Insert(%q, %q): %v", tt.name, tt.message, err)
		}
		got, err := c.Before(ctx, entity.MaxNo)
		if err != nil {
			t.Fatalf("Before(entity.MaxNo): %v", err)
		}
		checkPost(t, fmt.Sprintf("round trip of %q", tt.message), got, p)
	}
}

// testReset is the contract's Reset subtest.
func testReset(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	s := open(t, entity.Options{Pool: 2, SeedPosts: 10})
	c := Acquire(t, s)
	defer c.Release()
	for range 2 {
		if _, err := c.Insert(ctx, "x", "y"); err != nil {
			t.Fatalf("Insert: %v", err)
		}
	}
	// Reset while another connection is held: it takes one of its own.
	for _, n := range []int{5, 0, 3} {
		got, err := s.Reset(ctx, n)
		if err != nil || got != n {
			t.Fatalf("Reset(%d) = %d, %v; want %d, nil", n, got, err, n)
		}
		posts, err := c.Newest(ctx, 30)
		if err != nil {
			t.Fatalf("Newest(30): %v", err)
		}
		if len(posts) != n {
			t.Fatalf("after Reset(%d) Newest(30) gave %d posts; want %d", n, len(posts), n)
		}
		for i, p := range posts {
			checkPost(t, fmt.Sprintf("after Reset(%d) Newest(30)[%d]", n, i), p, entity.SeedPost(n-i))
		}
		p, err := c.Insert(ctx, "next", "after reset")
		if err != nil {
			t.Fatalf("Insert after Reset(%d): %v", n, err)
		}
		if p.No != int64(n+1) {
			t.Errorf("Insert after Reset(%d) gave number %d; want %d", n, p.No, n+1)
		}
	}
	if _, err := s.Reset(ctx, -1); err == nil {
		t.Errorf("Reset(-1) succeeded; want an error")
	}
}

// testReset100k is the contract's Reset100k subtest.
func testReset100k(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	if testing.Short() {
		t.Skip("short mode: skipping the 100,000-post reset")
	}
	s := open(t, entity.Options{Pool: 1})
	const n = 100_000
	if got, err := s.Reset(ctx, n); err != nil || got != n {
		t.Fatalf("Reset(%d) = %d, %v; want %d, nil", n, got, err, n)
	}
	c := Acquire(t, s)
	defer c.Release()
	p, err := c.Before(ctx, entity.MaxNo)
	if err != nil {
		t.Fatalf("Before(entity.MaxNo): %v", err)
	}
	checkPost(t, "Before(entity.MaxNo) after Reset(100000)", p, entity.SeedPost(n))
	if p, err := c.Insert(ctx, "a", "b"); err != nil || p.No != n+1 {
		t.Errorf("Insert after Reset(%d) = %d, %v; want %d", n, p.No, err, n+1)
	}
}

// testFixedPool is the contract's FixedPool subtest.
func testFixedPool(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	s := open(t, entity.Options{Pool: 3, PoolMode: entity.PoolFixed})
	st := s.Stats()
	if st.Open != 3 || st.Opened != 3 || st.Idle != 3 || st.InUse != 0 || st.Size != 3 || st.Min != 3 || st.Mode != "fixed" {
		t.Fatalf("Stats after Open = %+v; want 3 open, 3 opened, 3 idle, size 3, min 3, mode fixed", st)
	}
	for range 20 {
		var held []entity.Conn
		for range 3 {
			c := Acquire(t, s)
			if _, err := c.Newest(ctx, 1); err != nil {
				t.Fatalf("Newest(1): %v", err)
			}
			held = append(held, c)
		}
		for _, c := range held {
			c.Release()
		}
	}
	st = s.Stats()
	if st.Opened != 3 || st.Open != 3 || st.Acquires != 60 {
		t.Errorf("Stats after 60 acquires = %+v; want 3 opened, 3 open, 60 acquires", st)
	}
}

// testModeNone is the contract's ModeNone subtest.
func testModeNone(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	s := open(t, entity.Options{Pool: 2, PoolMode: entity.PoolNone, SeedPosts: 5})
	st := s.Stats()
	if st.Open != 0 || st.Mode != "none" {
		t.Fatalf("Stats after Open = %+v; want 0 open, mode none", st)
	}
	base := st.Opened
	for i := int64(1); i <= 5; i++ {
		c := Acquire(t, s)
		if _, err := c.Newest(ctx, 30); err != nil {
			t.Fatalf("Newest(30): %v", err)
		}
		if got := s.Stats(); got.Opened != base+i || got.Open != 1 || got.InUse != 1 {
			t.Errorf("Stats during acquire %d = %+v; want opened %d, 1 open, 1 in use", i, got, base+i)
		}
		c.Release()
		if got := s.Stats(); got.Open != 0 {
			t.Errorf("Stats after release %d = %+v; want 0 open", i, got)
		}
	}
}

// testModeNoneContended is the contract's ModeNoneContended subtest.
func testModeNoneContended(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	const pool, workers, rounds = 2, 8, 15
	s := open(t, entity.Options{Pool: pool, PoolMode: entity.PoolNone, SeedPosts: 5})
	base := s.Stats()
	var maxOpen atomic.Int64
	errs := make(chan error, workers)
	for range workers {
		go func() {
			errs <- func() error {
				for range rounds {
					c, err := s.Acquire(ctx)
					if err != nil {
						return err
					}
					st := s.Stats()
					if int64(st.Open) > maxOpen.Load() {
						maxOpen.Store(int64(st.Open)) // racy max; only checked against the bound
					}
					_, err = c.Newest(ctx, 3)
					// Hold the connection until another acquire waits for
					// one (at most 5 ms: the last goroutines have nobody
					// behind them), so that every release meets a waiter.
					for end := time.Now().Add(5 * time.Millisecond); s.Stats().Waiting == 0 && time.Now().Before(end); {
						runtime.Gosched()
					}
					c.Release()
					if err != nil {
						return err
					}
				}
				return nil
			}()
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Errorf("worker: %v", err)
		}
	}
	st := s.Stats()
	acquires, opened := st.Acquires-base.Acquires, st.Opened-base.Opened
	t.Logf("pool %d, %d goroutines x %d rounds: %d acquires opened %d connections (acquire-waiting %v in all)", pool, workers, rounds, acquires, opened, st.WaitingTime-base.WaitingTime)
	if acquires != workers*rounds || opened != acquires {
		t.Errorf("%d acquires opened %d connections; want %d acquires, each opening one", acquires, opened, workers*rounds)
	}
	if m := maxOpen.Load(); m > pool {
		t.Errorf("%d connections open at once; want at most the pool size %d", m, pool)
	}
	if st.Open != 0 || st.InUse != 0 || st.Waiting != 0 {
		t.Errorf("Stats after every release = %+v; want 0 open, 0 in use, 0 waiting", st)
	}
}

// testGrow is the contract's Grow subtest.
func testGrow(t *testing.T, open Opener) {
	t.Parallel()
	s := open(t, entity.Options{Pool: 4, PoolMin: 1})
	st := s.Stats()
	if st.Open != 1 || st.Min != 1 || st.Size != 4 || st.Mode != "grow" {
		t.Fatalf("Stats after Open = %+v; want 1 open, min 1, size 4, mode grow", st)
	}
	held := make([]entity.Conn, 4)
	for i := range held {
		held[i] = Acquire(t, s)
	}
	if st := s.Stats(); st.Open != 4 || st.InUse != 4 || st.Opened != 4 {
		t.Errorf("Stats holding 4 = %+v; want 4 open, 4 in use, 4 opened", st)
	}
	for _, c := range held {
		c.Release()
	}
	if st := s.Stats(); st.Open != 4 || st.Idle != 4 {
		t.Errorf("Stats after releasing 4 = %+v; want 4 open and idle (kept)", st)
	}
}

// testModes are the subtests run on each pool mode that blocks.
func testModes(t *testing.T, open Opener) {
	ctx := context.Background()
	for _, mode := range []string{entity.PoolFixed, entity.PoolNone} {
		t.Run("BlocksWhenFull/"+mode, func(t *testing.T) {
			t.Parallel()
			s := open(t, entity.Options{Pool: 1, PoolMode: mode})
			c1 := Acquire(t, s)
			got := make(chan error, 1)
			before := s.Stats()
			waits := make(chan time.Duration, 1)
			go func() {
				c2, err := s.Acquire(ctx)
				if err == nil {
					waits <- c2.AcquireWait()
					c2.Release()
				}
				got <- err
			}()
			WaitFor(t, "one acquire waiting", func() bool { return s.Stats().Waiting == 1 })
			select {
			case err := <-got:
				t.Fatalf("Acquire on a full pool returned (%v) before a Release", err)
			default:
			}
			c1.Release()
			select {
			case err := <-got:
				if err != nil {
					t.Fatalf("Acquire after Release: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Acquire still waiting 10 s after a Release")
			}
			st := s.Stats()
			if st.Acquires != 2 || st.Waiting != 0 || st.AcquireWait <= 0 {
				t.Errorf("Stats = %+v; want 2 acquires, 0 waiting, some wait", st)
			}
			// The Conn's AcquireWait is the figure the pool counted for it.
			if w, grew := <-waits, st.AcquireWait-before.AcquireWait; w <= 0 || w != grew {
				t.Errorf("Conn.AcquireWait = %v, Stats AcquireWait grew %v; want the same figure, above 0", w, grew)
			}
		})

		t.Run("AcquireCanceled/"+mode, func(t *testing.T) {
			t.Parallel()
			s := open(t, entity.Options{Pool: 1, PoolMode: mode})
			c1 := Acquire(t, s)
			defer c1.Release()
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			got := make(chan error, 1)
			go func() {
				c2, err := s.Acquire(cctx)
				if err == nil {
					c2.Release()
				}
				got <- err
			}()
			WaitFor(t, "one acquire waiting", func() bool { return s.Stats().Waiting == 1 })
			cancel()
			err := <-got
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Acquire with canceled ctx = %v; want context.Canceled", err)
			}
			var ae *entity.AcquireError
			if !errors.As(err, &ae) || ae.Wait <= 0 {
				t.Errorf("Acquire with canceled ctx = %#v; want an *entity.AcquireError with the time it waited", err)
			}
			if errors.Is(err, entity.ErrUnavailable) {
				t.Errorf("Acquire with canceled ctx = %v; must not be entity.ErrUnavailable", err)
			}
			if st := s.Stats(); st.Waiting != 0 || st.Acquires != 1 {
				t.Errorf("Stats = %+v; want 0 waiting, 1 acquire", st)
			}
		})

		t.Run("ReleaseTwice/"+mode, func(t *testing.T) {
			t.Parallel()
			s := open(t, entity.Options{Pool: 1, PoolMode: mode})
			c := Acquire(t, s)
			c.Release()
			c.Release()
			c = Acquire(t, s)
			defer c.Release()
			if st := s.Stats(); st.InUse != 1 {
				t.Errorf("Stats = %+v; want 1 in use", st)
			}
			// The double Release must not have made room for a second connection.
			tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			if c2, err := s.Acquire(tctx); err == nil {
				c2.Release()
				t.Fatal("a second Acquire on a pool of 1 succeeded after a double Release")
			} else if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Acquire on a full pool = %v; want context.DeadlineExceeded", err)
			}
		})
	}
}

// testConcurrent is the contract's Concurrent subtest.
func testConcurrent(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	const workers, rounds = 8, 25
	s := open(t, entity.Options{Pool: 3, SeedPosts: 10})
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			errs <- func() error {
				for i := range rounds {
					c, err := s.Acquire(ctx)
					if err != nil {
						return err
					}
					_, err = c.Insert(ctx, fmt.Sprintf("w%d", w), fmt.Sprintf("round %d", i))
					if err == nil {
						_, err = c.Newest(ctx, 30)
					}
					c.Release()
					if err != nil {
						return err
					}
				}
				return nil
			}()
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Errorf("worker: %v", err)
		}
	}
	c := Acquire(t, s)
	defer c.Release()
	p, err := c.Before(ctx, entity.MaxNo)
	if err != nil || p.No != 10+workers*rounds {
		t.Errorf("Before(entity.MaxNo) after %d inserts = %d, %v; want %d", workers*rounds, p.No, err, 10+workers*rounds)
	}
	if st := s.Stats(); st.Opened != 3 || st.Acquires != workers*rounds+1 {
		t.Errorf("Stats = %+v; want 3 opened, %d acquires", st, workers*rounds+1)
	}
}

// testModesConcurrent are the concurrent subtests run on every pool mode.
func testModesConcurrent(t *testing.T, open Opener) {
	ctx := context.Background()
	for _, mode := range []string{entity.PoolFixed, "", entity.PoolNone} {
		t.Run("StatesAddUp/"+cmp.Or(mode, "grow"), func(t *testing.T) {
			t.Parallel()
			s := open(t, entity.Options{Pool: 3, PoolMode: mode, SeedPosts: 5})
			check := func(when string) {
				st := s.Stats()
				if st.InUse+st.Idle+st.Opening != st.Open || st.InUse < 0 || st.Idle < 0 || st.Opening < 0 {
					t.Errorf("Stats %s = %+v: in_use %d + idle %d + opening %d != open %d", when, st, st.InUse, st.Idle, st.Opening, st.Open)
				}
			}
			check("after Open")
			const workers, rounds = 6, 10
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for range rounds {
						c, err := s.Acquire(ctx)
						if err != nil {
							t.Errorf("Acquire: %v", err)
							return
						}
						check("holding a connection")
						if _, err := c.Newest(ctx, 3); err != nil {
							t.Errorf("Newest(3): %v", err)
						}
						c.Release()
						check("after a release")
					}
				})
			}
			wg.Wait()
			check("after every release")
		})
	}
}

// testStatsInUse is the contract's StatsInUse subtest.
func testStatsInUse(t *testing.T, open Opener) {
	t.Parallel()
	s := open(t, entity.Options{Pool: 2})
	c := Acquire(t, s)
	if st := s.Stats(); st.InUse != 1 || st.Idle != 1 || st.Open != 2 || st.Acquires != 1 || st.Waiting != 0 {
		t.Errorf("Stats holding 1 of 2 = %+v; want 1 in use, 1 idle, 2 open, 1 acquire", st)
	}
	c.Release()
	if st := s.Stats(); st.InUse != 0 || st.Idle != 2 {
		t.Errorf("Stats after release = %+v; want 0 in use, 2 idle", st)
	}
}

// testPingAndClose is the contract's PingAndClose subtest.
func testPingAndClose(t *testing.T, open Opener) {
	ctx := context.Background()
	t.Parallel()
	s := open(t, entity.Options{Pool: 1})
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := s.Acquire(ctx); !errors.Is(err, entity.ErrUnavailable) {
		t.Errorf("Acquire after Close = %v; want entity.ErrUnavailable", err)
	}
}

// Acquire takes a connection from s, failing the test if it cannot, and
// releases it when the test ends unless released before.
func Acquire(t *testing.T, s entity.Store) entity.Conn {
	t.Helper()
	c, err := s.Acquire(context.Background())
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	t.Cleanup(c.Release) // before the store closes, if the test stops early; a second Release does nothing
	return c
}

func checkPost(t *testing.T, what string, got, want entity.Post) {
	t.Helper()
	if got.No != want.No || got.Name != want.Name || got.Message != want.Message ||
		!got.CreatedAt.Equal(want.CreatedAt) || got.CreatedAt.Location() != time.UTC {
		t.Errorf("%s = %+v; want %+v (UTC)", what, got, want)
	}
}

// WaitFor polls cond until it holds, failing the test after 10 s.
func WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
