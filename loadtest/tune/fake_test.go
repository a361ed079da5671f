package tune

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"bbslab/loadtest/watch"
)

// gate is a counting semaphore whose limit changes while it is held, as
// a worker limit or a pool does.
type gate struct {
	mu    sync.Mutex
	cond  *sync.Cond
	limit int
	held  int
}

func newGate(n int) *gate {
	g := &gate{limit: n}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *gate) acquire() {
	g.mu.Lock()
	for g.held >= g.limit {
		g.cond.Wait()
	}
	g.held++
	g.mu.Unlock()
}

func (g *gate) release() {
	g.mu.Lock()
	g.held--
	g.mu.Unlock()
	g.cond.Broadcast()
}

func (g *gate) set(n int) {
	g.mu.Lock()
	g.limit = n
	g.mu.Unlock()
	g.cond.Broadcast()
}

// fakeBoard is a running target for the tests of the live path: a server
// whose requests queue for a worker, then for a connection, hold it for
// queries x dbPer (sleeping), give it back, then take the one core for cpu
// (sleeping): its counters respond to the knobs as a real server's would,
// in seconds of each state (Little's law). The other tests tune the model
// (model_test.go), which computes what this one measures.
type fakeBoard struct {
	workers, pool, core *gate
	queries             int
	dbPer, cpu          time.Duration

	mu                                                 sync.Mutex
	knobs                                              watch.Knobs
	workerWait, workerBusy, poolWait, poolBusy, coreSs float64
	dbSecs, nQueries                                   float64
	// coreDemand counts the requests holding or waiting for the core;
	// the core is busy (coreSs) while any does, as a CPU with work queued
	// is, the hand-overs between requests included.
	coreDemand int
	coreAt     time.Time
	// fixed: the knobs cannot change while the fake runs (a 409), only
	// by restart; restarts counts those.
	fixed    bool
	restarts int
}

// restart sets k as a restart of the fake would (its knobs in force from
// the start).
func (f *fakeBoard) restart(k watch.Knobs) {
	f.workers.set(k.Workers)
	f.pool.set(k.Pool)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.knobs = k
	f.restarts++
}

func newFakeBoard(k watch.Knobs, queries int, dbPer, cpu time.Duration) *fakeBoard {
	return &fakeBoard{workers: newGate(k.Workers), pool: newGate(k.Pool), core: newGate(1), queries: queries, dbPer: dbPer, cpu: cpu, knobs: k}
}

// coreBusy counts a request into (+1) or out of (-1) the core's demand,
// adding the time the core was busy since the last change.
func (f *fakeBoard) coreBusy(d int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	if f.coreDemand > 0 {
		f.coreSs += now.Sub(f.coreAt).Seconds()
	}
	f.coreDemand += d
	f.coreAt = now
}

func (f *fakeBoard) page(w http.ResponseWriter, r *http.Request) {
	t0 := time.Now()
	f.workers.acquire()
	t1 := time.Now()
	f.pool.acquire()
	t2 := time.Now()
	time.Sleep(time.Duration(f.queries) * f.dbPer)
	t3 := time.Now()
	f.pool.release()
	f.coreBusy(+1)
	f.core.acquire()
	time.Sleep(f.cpu)
	f.core.release()
	f.coreBusy(-1)
	t5 := time.Now()
	f.workers.release()
	f.mu.Lock()
	f.workerWait += t1.Sub(t0).Seconds()
	f.workerBusy += t5.Sub(t1).Seconds()
	f.poolWait += t2.Sub(t1).Seconds()
	f.poolBusy += t3.Sub(t2).Seconds()
	f.dbSecs += t3.Sub(t2).Seconds()
	f.nQueries += float64(f.queries)
	f.mu.Unlock()
	w.Write([]byte("ok"))
}

func (f *fakeBoard) stats(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	json.NewEncoder(w).Encode(map[string]any{
		"w": map[string]float64{"wait": f.workerWait, "busy": f.workerBusy},
		"p": map[string]float64{"wait": f.poolWait, "busy": f.poolBusy},
		"c": map[string]float64{"busy": f.coreSs, "idle": 50, "sched": 0, "others": 0},
		"q": map[string]float64{"n": f.nQueries, "db": f.dbSecs},
	})
}

func (f *fakeBoard) knobsHandler(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		wk, _ := strconv.Atoi(r.FormValue("workers"))
		pl, _ := strconv.Atoi(r.FormValue("pool"))
		if wk < 1 || pl < 1 {
			http.Error(w, "bad knobs", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		fixed := f.fixed
		f.mu.Unlock()
		if fixed {
			http.Error(w, "the pool cannot change while it runs", http.StatusConflict)
			return
		}
		f.workers.set(wk)
		f.pool.set(pl)
		f.mu.Lock()
		f.knobs = watch.Knobs{Workers: wk, Pool: pl}
		if mn, _ := strconv.Atoi(r.FormValue("pool_min")); mn != 0 && mn != pl {
			f.knobs.PoolMin = mn
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	json.NewEncoder(w).Encode(f.knobs)
}

// start serves the fake and returns its URL and its Target.
func (f *fakeBoard) start(t *testing.T) (string, watch.Target) {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", f.page)
	mux.HandleFunc("/stats", f.stats)
	mux.HandleFunc("/knobs", f.knobsHandler)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, fakeTarget()
}

// fakeTarget describes the fake to the tuner, as package contract
// describes the board.
func fakeTarget() watch.Target {
	ctr := func(name, path string, scale float64, perReq bool) watch.Stat {
		return watch.Stat{Name: name, Path: path, Kind: watch.Counter, Scale: scale, PerRequest: perReq}
	}
	call := func(ctx context.Context, method, u string) (watch.Knobs, error) {
		req, _ := http.NewRequestWithContext(ctx, method, u, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return watch.Knobs{}, err
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusConflict {
			return watch.Knobs{}, fmt.Errorf("%s: %w", resp.Status, watch.ErrRestart)
		}
		if resp.StatusCode != http.StatusOK {
			return watch.Knobs{}, fmt.Errorf("%s", resp.Status)
		}
		var k watch.Knobs
		return k, json.NewDecoder(resp.Body).Decode(&k)
	}
	others := ctr("others", "c.others", 100, false)
	return watch.Target{
		StatsPath:    "/stats",
		Interference: others,
		Stats: []watch.Stat{
			ctr("ww", "w.wait", 1000, true), ctr("wq", "w.wait", 1, false), ctr("wb", "w.busy", 1, false),
			ctr("pw", "p.wait", 1000, true), ctr("pq", "p.wait", 1, false), ctr("pb", "p.busy", 1, false),
			ctr("core", "c.busy", 100, false), {Name: "idle", Path: "c.idle", Kind: watch.Gauge, Scale: 1}, ctr("sched", "c.sched", 1000, true), others,
		},
		Tuning: &watch.Tuning{
			WorkerWait: "ww", WorkersQueued: "wq", WorkersBusy: "wb", PoolWait: "pw", PoolWaiting: "pq", PoolInUse: "pb",
			CoresBusy: "core", MachineIdle: "idle", CPUWait: "sched", KnobsPath: "/knobs",
			Work: func(string) (watch.Work, bool) {
				return watch.Work{Name: "page", Queries: ctr("queries", "q.n", 1, true), Database: ctr("db", "q.db", 1000, true)}, true
			},
			Get: func(ctx context.Context, admin string) (watch.Knobs, error) {
				return call(ctx, http.MethodGet, admin+"/knobs")
			},
			Set: func(ctx context.Context, admin string, k watch.Knobs) (watch.Knobs, error) {
				return call(ctx, http.MethodPost, fmt.Sprintf("%s/knobs?workers=%d&pool=%d&pool_min=%d", admin, k.Workers, k.Pool, k.Min()))
			},
		},
	}
}
