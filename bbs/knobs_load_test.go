//go:build cgo

// This test serves the board on real stores (entity/open; SQLite needs
// cgo) and turns its knobs through /admin/knobs while clients load it.

package bbs

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bbslab/entity"
	"bbslab/entity/open"
	"bbslab/internal/testenv"
)

// TestKnobsUnderLoad grows and shrinks the worker limit and the pool
// through /admin/knobs while ten clients run EachGetView (a connection
// per query, so the pool churns) and post, on SQLite and, when
// BBS_TEST_POSTGRES_DSN is set, on PostgreSQL: every request is answered
// 200; growing opens exactly the new connections; once a shrink took
// effect no more workers are busy and no more connections in use than the
// new limits.
func TestKnobsUnderLoad(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		knobsUnderLoad(t, entity.Options{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "knobs.db")})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := testenv.PostgresDSN(t)
		knobsUnderLoad(t, entity.Options{Driver: "postgres", DSN: dsn, Schema: pgTestSchema(t, dsn)})
	})
}

func knobsUnderLoad(t *testing.T, o entity.Options) {
	o.Pool, o.SeedPosts = 2, 50
	st, err := open.Store(context.Background(), o)
	if err != nil {
		t.Fatalf("open %s: %v", o.Driver, err)
	}
	t.Cleanup(func() { st.Close() })
	s := New(Options{Store: st, Workers: 2, Queue: 100, QueueTimeout: 30 * time.Second, DBName: o.Driver})
	s.SetReady(true)
	pub := httptest.NewServer(s.Handler())
	adm := httptest.NewServer(s.AdminHandler())
	t.Cleanup(adm.Close)
	t.Cleanup(pub.Close)

	var served, failed atomic.Int64
	var firstFail atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 10 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				form := url.Values{"cmd": {"EachGetView"}, "n": {"5"}, "format": {"json"}}
				if i%4 == 0 {
					form.Set("message", fmt.Sprintf("client %d post %d", c, i))
				}
				resp, err := http.PostForm(pub.URL+"/bbs", form)
				if err != nil || resp.StatusCode != 200 {
					failed.Add(1)
					firstFail.CompareAndSwap(nil, fmt.Sprintf("%v %v", resp.Status, err))
				} else {
					served.Add(1)
				}
				if resp != nil {
					resp.Body.Close()
				}
			}
		})
	}
	waitUntil(t, "requests queued for a worker", func() bool { return s.limit.stats().Queued > 0 })

	opened := st.Stats().Opened
	if code, k, body := postKnobs(t, adm.URL, "workers=6&pool=6&wait=10s"); code != 200 || k.Workers != 6 || k.Pool != 6 {
		t.Fatalf("grow to 6 and 6: %d %s", code, body)
	}
	grown := adminStatsOf(t, adm.URL)
	if got := grown.DBPool; got.Opened-opened != 4 || got.Size != 6 || got.Min != 6 {
		t.Errorf("after growing the pool 2 to 6: %d opened, size %d, min %d; want 4 opened", got.Opened-opened, got.Size, got.Min)
	}
	statsShow(t, grown, 6, 6)
	time.Sleep(100 * time.Millisecond)

	opened = st.Stats().Opened
	code, k, body := postKnobs(t, adm.URL, "workers=3&pool=3&pool_min=2&wait=10s")
	if code != 200 || k.EffectiveAt == nil || k.Workers != 3 || k.Pool != 3 || k.PoolMin != 2 || k.PoolMode != "grow" {
		t.Fatalf("shrink to 3 workers, pool 2..3: %d %s", code, body)
	}
	statsShow(t, adminStatsOf(t, adm.URL), 3, 3)
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); time.Sleep(time.Millisecond) {
		w, p := s.limit.stats(), st.Stats()
		if w.Busy > 3 || p.InUse > 3 || p.Open > 3 {
			t.Fatalf("after the shrink took effect: %d busy, %d in use, %d open; want at most 3 each", w.Busy, p.InUse, p.Open)
		}
	}
	close(stop)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d requests failed while the knobs changed; the first: %v", n, n+served.Load(), firstFail.Load())
	}
	if p := st.Stats(); p.Opened != opened {
		t.Errorf("shrinking opened %d connections; want none", p.Opened-opened)
	}
	if r := adminStatsOf(t, adm.URL).Responses; r.Busy != 0 || r.Failed != 0 {
		t.Errorf("responses %+v; want no 503 and no 500", r)
	}
	t.Logf("%s: %d requests served while the knobs changed", o.Driver, served.Load())
}

// statsShow checks that /admin/stats, read as soon as a POST to
// /admin/knobs answered 200 under load, shows the new worker limit and
// pool in workers, db_pool and knobs, the change effective; it logs how
// long after the change it took effect.
func statsShow(t *testing.T, st Stats, workers, pool int) {
	t.Helper()
	k := st.Knobs
	if st.Workers.Size != workers || st.DBPool.Size != pool || k.Workers != workers || k.Pool != pool || k.ChangedAt == nil || k.EffectiveAt == nil || k.EffectiveAt.Before(*k.ChangedAt) {
		t.Errorf("/admin/stats after setting %d workers and %d connections: workers %d, db_pool %d, knobs %+v; want the new values, effective", workers, pool, st.Workers.Size, st.DBPool.Size, k)
		return
	}
	t.Logf("%d/%d in /admin/stats, effective %v after the change", workers, pool, k.EffectiveAt.Sub(*k.ChangedAt))
}

// pgTestSchema names a fresh schema for a test on the PostgreSQL server
// dsn names (the store creates it), dropped when the test ends.
func pgTestSchema(t *testing.T, dsn string) string {
	t.Helper()
	name := fmt.Sprintf("bbs_knobs_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return name
}
