package storetest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"bbslab/entity"
)

// testResize checks entity.Resizable: the pool grown and shrunk under
// load, min and max apart, mode none refusing, bad sizes refused.
func testResize(t *testing.T, open func(t *testing.T, o entity.Options) entity.Store) {
	ctx := context.Background()

	// Eight goroutines run a query per acquire on a pool of 2, so that
	// acquires wait. Growing to 5 opens exactly the 3 new connections
	// (an acquire that opened one itself would make it more); shrinking
	// to 2 opens none; no acquire or query fails; and once the drain is
	// over no more than 2 are in use.
	t.Run("ResizeUnderLoad", func(t *testing.T) {
		t.Parallel()
		s := open(t, entity.Options{Pool: 2, SeedPosts: 20})
		r := resizable(t, s)
		base := s.Stats()
		var limit, over atomic.Int64
		limit.Store(2)
		stop := make(chan struct{})
		wait := churn(s, 8, stop, func(st entity.PoolStats) {
			if int64(st.InUse) > limit.Load() {
				over.Store(int64(st.InUse))
			}
		})
		WaitFor(t, "acquires waiting", func() bool { return s.Stats().Waiting > 0 })
		limit.Store(5)
		if err := r.Resize(ctx, 5, 5); err != nil {
			t.Fatalf("Resize(5, 5): %v", err)
		}
		if st := s.Stats(); st.Size != 5 || st.Min != 5 || st.Mode != "fixed" || st.Open != 5 || st.Opened-base.Opened != 3 {
			t.Errorf("after growing 2 to 5 under load: %+v; want size, min and open 5, 3 opened", st)
		}
		WaitFor(t, "5 in use", func() bool { return s.Stats().InUse == 5 })

		shrunk := time.Now()
		if err := r.Resize(ctx, 2, 2); err != nil {
			t.Fatalf("Resize(2, 2): %v", err)
		}
		WaitFor(t, "the drain", func() bool { st := s.Stats(); return st.Draining == 0 && !st.Settled.Before(shrunk) })
		over.Store(0)
		limit.Store(2)
		time.Sleep(50 * time.Millisecond)
		close(stop)
		if errs := wait(); len(errs) > 0 {
			t.Errorf("%d acquires or queries failed while the pool was resized; the first: %v", len(errs), errs[0])
		}
		if o := over.Load(); o > 0 {
			t.Errorf("%d connections in use after the drain; want at most 2", o)
		}
		if st := s.Stats(); st.Open != 2 || st.Idle != 2 || st.Opened-base.Opened != 3 || st.Size != 2 {
			t.Errorf("after shrinking to 2: %+v; want 2 open and idle, still 3 opened since the start", st)
		}
	})

	t.Run("ResizeApart", func(t *testing.T) {
		t.Parallel()
		s := open(t, entity.Options{Pool: 2})
		r := resizable(t, s)
		if err := r.Resize(ctx, 1, 4); err != nil {
			t.Fatalf("Resize(1, 4): %v", err)
		}
		if st := s.Stats(); st.Open != 2 || st.Min != 1 || st.Size != 4 || st.Mode != "grow" || st.Opened != 2 {
			t.Fatalf("after Resize(1, 4) from 2: %+v; want the 2 kept, min 1, size 4, mode grow", st)
		}
		var held []entity.Conn
		for range 4 {
			held = append(held, Acquire(t, s))
		}
		if st := s.Stats(); st.InUse != 4 || st.Opened != 4 {
			t.Errorf("holding 4 of a pool growing to 4: %+v; want 4 in use, 4 opened", st)
		}
		for _, c := range held {
			c.Release()
		}
	})

	t.Run("ResizeModeNone", func(t *testing.T) {
		t.Parallel()
		s := open(t, entity.Options{Pool: 2, PoolMode: entity.PoolNone})
		if err := resizable(t, s).Resize(ctx, 3, 3); !errors.Is(err, entity.ErrNotResizable) {
			t.Errorf("Resize in mode none = %v; want entity.ErrNotResizable", err)
		}
		if st := s.Stats(); st.Size != 2 {
			t.Errorf("after the refused Resize: size %d; want 2", st.Size)
		}
	})

	t.Run("ResizeBad", func(t *testing.T) {
		t.Parallel()
		s := open(t, entity.Options{Pool: 2})
		r := resizable(t, s)
		for _, bad := range [][2]int{{0, 2}, {3, 2}, {-1, 1}, {0, 0}} {
			if err := r.Resize(ctx, bad[0], bad[1]); err == nil || errors.Is(err, entity.ErrNotResizable) {
				t.Errorf("Resize(%d, %d) = %v; want an error about the sizes", bad[0], bad[1], err)
			}
		}
		if st := s.Stats(); st.Size != 2 || st.Min != 2 || st.Open != 2 {
			t.Errorf("after bad Resizes: %+v; want the pool unchanged", st)
		}
	})
}

// churn runs n goroutines that acquire, run Newest(5), read the stats
// while holding the connection (see), and release, until stop is closed.
// The returned function waits for them and returns their errors.
func churn(s entity.Store, n int, stop chan struct{}, see func(entity.PoolStats)) func() []error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	ctx := context.Background()
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := s.Acquire(ctx)
				if err != nil {
					fail(err)
					return
				}
				see(s.Stats())
				if _, err := c.Newest(ctx, 5); err != nil {
					fail(err)
				}
				time.Sleep(200 * time.Microsecond)
				c.Release()
			}
		})
	}
	return func() []error { wg.Wait(); return errs }
}

// resizable returns s as an entity.Resizable, failing the test when it is
// not one.
func resizable(t *testing.T, s entity.Store) entity.Resizable {
	t.Helper()
	r, ok := s.(entity.Resizable)
	if !ok {
		t.Fatalf("%T is not an entity.Resizable", s)
	}
	return r
}
