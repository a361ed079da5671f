package storetest

import (
	"bytes"
	"context"
	"errors"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"bbslab/entity"
)

// testValidate is the validation-on-borrow part of the entity.Store
// contract (Options.PoolValidate): every acquire pays one round trip of
// the database at a distance before it hands a connection out, inside the
// acquire, and the request's own statements do not count it.
func testValidate(t *testing.T, open func(t *testing.T, o entity.Options) entity.Store) {
	ctx := context.Background()
	const lat = 25 * time.Millisecond

	for _, mode := range []string{entity.ValidatePing, entity.ValidateQuery} {
		t.Run("ValidateRoundTrip/"+mode, func(t *testing.T) {
			t.Parallel()
			s := open(t, entity.Options{Pool: 2, SeedPosts: 5, PoolValidate: mode, Distance: entity.Distance{Latency: lat}})
			before := s.Stats()
			const n = 3
			for i := range n {
				start := time.Now()
				c := Acquire(t, s)
				if d := time.Since(start); d < lat {
					t.Errorf("acquire %d with pool_validate %q took %v; want at least db_latency %v", i, mode, d, lat)
				}
				if got := c.Statements(); got != 0 {
					t.Errorf("Statements after a validated acquire = %d; want 0 (the validation is the pool's, not the request's)", got)
				}
				t0 := time.Now()
				if _, err := c.Before(ctx, entity.MaxNo); err != nil {
					t.Fatalf("Before after a validated acquire: %v", err)
				}
				// The statement's wait fits in the call's time: the
				// validation's, before the call, would not. (A bound of two
				// db_latency failed at 68 ms under load with -race.)
				took := time.Since(t0)
				if got, w := c.Statements(), c.NetworkWait(); got != 1 || w < lat || w > took {
					t.Errorf("after one Before: Statements %d, NetworkWait %v in a call of %v; want 1 and one db_latency %v within the call (not the validation's)", got, w, took, lat)
				}
				c.Release()
			}
			st := s.Stats()
			if got := st.Validations - before.Validations; got != n {
				t.Errorf("Stats validations grew %d after %d acquires; want %d", got, n, n)
			}
			if got := st.ValidationTime - before.ValidationTime; got < n*lat {
				t.Errorf("Stats validation time grew %v; want at least %d x %v", got, n, lat)
			}
			if acq, val := st.AcquireWait-before.AcquireWait, st.ValidationTime-before.ValidationTime; acq < val {
				t.Errorf("Stats acquire wait grew %v, less than the validation time %v it includes", acq, val)
			}
			if got := st.NetworkWaits - before.NetworkWaits; got != 2*n {
				t.Errorf("Stats network round trips grew %d after %d validated acquires with a statement each; want %d", got, n, 2*n)
			}
		})
	}

	testValidateOthers(t, open)
}

// testValidateOthers is the rest of testValidate.
func testValidateOthers(t *testing.T, open func(t *testing.T, o entity.Options) entity.Store) {
	ctx := context.Background()
	const lat = 25 * time.Millisecond

	t.Run("ValidateOff", func(t *testing.T) {
		t.Parallel()
		s := open(t, entity.Options{Pool: 1, PoolValidate: entity.ValidateOff, Distance: entity.Distance{Latency: lat}})
		before := s.Stats()
		c := Acquire(t, s)
		c.Release()
		st := s.Stats()
		if st.Validations != before.Validations || st.NetworkWaits != before.NetworkWaits {
			t.Errorf("acquire with pool_validate off: validations %d -> %d, round trips %d -> %d; want no change",
				before.Validations, st.Validations, before.NetworkWaits, st.NetworkWaits)
		}
	})

	t.Run("ValidateStopsWithContext", func(t *testing.T) {
		t.Parallel()
		s := open(t, entity.Options{Pool: 1, PoolValidate: entity.ValidateQuery, Distance: entity.Distance{Latency: 5 * time.Second}})
		cctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		defer cancel()
		start := time.Now()
		c, err := s.Acquire(cctx)
		if err == nil {
			c.Release()
			t.Fatalf("Acquire past its deadline while validating succeeded; want DeadlineExceeded")
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Acquire past its deadline while validating = %v; want DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Acquire past a 30ms deadline took %v; want it to stop validating", d)
		}
		// The connection went back to the pool.
		WaitFor(t, "the connection given back", func() bool { st := s.Stats(); return st.InUse == 0 && st.Waiting == 0 })
	})

	t.Run("ValidateWaitFrame", func(t *testing.T) {
		t.Parallel()
		s := open(t, entity.Options{Pool: 1, PoolValidate: entity.ValidatePing, Distance: entity.Distance{Latency: 2 * time.Second}})
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if c, err := s.Acquire(cctx); err == nil {
				c.Release()
			}
		}()
		var dump string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			var b bytes.Buffer
			pprof.Lookup("goroutine").WriteTo(&b, 1)
			if dump = b.String(); strings.Contains(dump, "bbslab/entity/internal/driverkit.validateWait+") {
				break
			}
		}
		cancel()
		<-done
		if !strings.Contains(dump, "bbslab/entity/internal/driverkit.validateWait+") {
			t.Errorf("no goroutine in driverkit.validateWait while an acquire validated")
		}
		// The dump holds every goroutine of the test binary, and parallel
		// tests' statements wait in networkWait: only a stack that also
		// holds validateWait is the validating acquire's.
		for _, g := range strings.Split(dump, "\n\n") {
			if strings.Contains(g, "driverkit.validateWait+") && strings.Contains(g, "driverkit.networkWait+") {
				t.Errorf("a validating acquire showed driverkit.networkWait, the frame of a statement's wait:\n%s", g)
			}
		}
	})
}

// Bench measures what one pooled acquire and release costs on a store,
// with each validation on borrow and no database at a distance: the cost
// the pool itself adds to every "acquire, query, release" of EachGetView.
// open returns a fresh store for o, closed when the benchmark ends. Each
// sub-benchmark reports ns/op for one Acquire + Release.
func Bench(b *testing.B, open func(b *testing.B, o entity.Options) entity.Store) {
	ctx := context.Background()
	for _, mode := range []string{entity.ValidateOff, entity.ValidatePing, entity.ValidateQuery} {
		b.Run("AcquireRelease/validate="+mode, func(b *testing.B) {
			s := open(b, entity.Options{Pool: 5, SeedPosts: 30, PoolValidate: mode})
			for b.Loop() {
				c, err := s.Acquire(ctx)
				if err != nil {
					b.Fatal(err)
				}
				c.Release()
			}
		})
	}
	// One single-row query on a held connection, for scale: what
	// EachGetView does between an acquire and a release.
	b.Run("Before", func(b *testing.B) {
		s := open(b, entity.Options{Pool: 5, SeedPosts: 30})
		c, err := s.Acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Release()
		for b.Loop() {
			if _, err := c.Before(ctx, entity.MaxNo); err != nil {
				b.Fatal(err)
			}
		}
	})
}
