package tune

import (
	"context"
	"math"
	"net/http"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// model is a target the tests tune without running it: a Measurer whose
// runs' figures are computed, not measured, so that a tuning takes no
// time. It models a server with 20 closed-loop clients without think time:
// a request waits for a worker, then for a connection, holds it for
// queries x dbPer (and, when the pool's minimum is below its size, for
// open times the share of connections above the minimum, which are closed
// when idle and opened again), gives it back, then takes cpu of the one
// core. The throughput is the tightest of the clients', the pool's, the
// workers' and the core's bounds; the waits and counts follow by Little's
// law: what the workers cannot hold queues for them, what they hold
// beyond the pool's and the core's service waits at the bottleneck.
type model struct {
	k          watch.Knobs
	queries    int
	dbPer, cpu time.Duration
	open       time.Duration
	// others is the share of the core other work takes (the target's
	// interference reading).
	others float64
	// contention is the share of cpu each busy worker adds to every
	// request's core time (the scheduler's and the locks' cost of more
	// threads at once): 0 gives a flat plateau of equal settings.
	contention float64
	// sets counts Set, runs the runs (they seed each run's ±1 % noise).
	sets, runs int
	// noise, when set, replaces the ±1 % noise of a run at k.
	noise func(k watch.Knobs) float64
}

func newModel(k watch.Knobs, queries int, dbPer, cpu time.Duration) *model {
	return &model{k: k, queries: queries, dbPer: dbPer, cpu: cpu}
}

// The model's load: 20 clients, without think time.
const modelClients = 20

func (f *model) Get(context.Context) (watch.Knobs, error) { return f.k, nil }

func (f *model) Set(_ context.Context, k watch.Knobs) (bool, error) {
	f.k = k
	f.sets++
	return false, nil
}

func (f *model) Run(_ context.Context, k watch.Knobs, first, n int) ([]*loadtest.Result, error) {
	var out []*loadtest.Result
	for range n {
		f.runs++
		noise := 1 + 0.01*math.Sin(2.4*float64(f.runs))
		if f.noise != nil {
			noise = f.noise(k)
		}
		out = append(out, f.result(k, noise))
	}
	return out, nil
}

// disturb makes other work take share of the core from now on.
func (f *model) disturb(share float64) { f.others = share }

// setCPU changes the core time each request takes from now on.
func (f *model) setCPU(d time.Duration) { f.cpu = d }

// result is one run at k, its throughput scaled by noise.
func (f *model) result(k watch.Knobs, noise float64) *loadtest.Result {
	db := float64(f.queries) * f.dbPer.Seconds()
	hold := db + f.open.Seconds()*float64(k.Pool-k.Min())/float64(k.Pool)
	n, w, p := float64(modelClients), float64(k.Workers), float64(k.Pool)
	c := f.cpu.Seconds() * (1 + f.contention*min(w, n))
	x := min(n/(hold+c), p/hold, w/(hold+c), 1/c)
	busy := min(w, n)
	inUse, onCore := x*hold, x*c
	rest := max(0, busy-inUse-onCore)
	var poolQ, coreQ float64
	switch {
	case x >= p/hold*(1-1e-9):
		poolQ = rest
	case x >= 1/c*(1-1e-9):
		coreQ = rest
	}
	x *= noise
	lat := n / x
	h := loadtest.NewHistogram()
	for i := range 100 {
		h.Record(time.Duration(lat * (0.5 + float64(i)/99) * float64(time.Second)))
	}
	const secs = 0.6
	res := &loadtest.Result{Total: loadtest.Stats{Requests: int64(x * secs), Successes: int64(x * secs), Throughput: x, MeanMs: 1000 * lat, Histogram: h}}
	vals := map[string]float64{
		"ww": 1000 * (n - busy) / x, "wq": n - busy, "wb": busy,
		"pw": 1000 * poolQ / x, "pq": poolQ, "pb": inUse,
		"core": min(100, 100*onCore), "idle": 50, "sched": 1000 * coreQ / x,
		"others": 100 * f.others, "queries": float64(f.queries), "db": 1000 * db,
	}
	var sv []watch.ServerValue
	for name, v := range vals {
		sv = append(sv, watch.ServerValue{Name: name, Value: v})
	}
	if err := (watch.Seen{Server: &watch.ServerStats{Values: sv}}).Put(res); err != nil {
		panic(err)
	}
	return res
}

// spec is a tuning of the model: 20 clients without think time, each
// setting measured twice (the model's durations are its own: nothing
// waits for them).
func (f *model) spec(start watch.Knobs, steps int, slo string) Spec {
	objs, err := loadtest.ParseSLO(slo)
	if err != nil {
		panic(err)
	}
	return Spec{
		Load: loadtest.Settings{Requests: []loadtest.Request{{URL: "http://model/page", Expect: http.StatusOK}}, Clients: modelClients,
			Warmup: 150 * time.Millisecond, Duration: 600 * time.Millisecond, Model: loadtest.ModelDelay, Timeout: 5 * time.Second},
		Admin: "http://model", Objectives: objs, Start: start, Repeats: 2, Steps: steps, MaxWorkers: 40, MaxPool: 40,
	}
}

// opt is o with the model as its measurer.
func (f *model) opt(o Options) Options {
	o.Measurer = f
	return o
}
