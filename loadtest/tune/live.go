package tune

import (
	"cmp"
	"fmt"
	"time"

	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/watch"
)

// Feed has the tuning of spec feed fd for a live dashboard.
func (o *Options) Feed(fd *feed.Feed, spec *Spec) {
	path := "from the knobs in force"
	if spec.Start != (watch.Knobs{}) {
		path = fmt.Sprintf("from %d/%d", spec.Start.Workers, spec.Start.Pool)
	}
	fd.Begin(LiveProgress(path, *spec, 1))
	spec.Load.Observers = append(spec.Load.Observers, fd.Observer())
	o.OnStep = func(st Step) {
		fd.Tune(LivePoint(path, st))
		if st.Next != nil {
			fd.Begin(LiveProgress(path, *spec, st.N+1))
		}
	}
	o.Watch = func(wo *watch.Options) { wo.OnRead = fd.OnRead }
}

// LiveProgress is where a tuning on path stands when its step n starts.
func LiveProgress(path string, spec Spec, n int) feed.Position {
	budget, repeats := cmp.Or(spec.Steps, DefaultBudget), float64(cmp.Or(spec.Repeats, DefaultRepeats))
	n = min(max(n, 1), budget)
	pair := 2 * repeats * (spec.Load.Warmup + spec.Load.Duration).Seconds()
	step := pair
	if n == 1 {
		step = (spec.Load.Warmup + time.Duration(repeats)*spec.Load.Duration).Seconds()
	}
	return feed.Position{Run: path, Step: n, Steps: budget, Clients: spec.Load.Clients, StepSeconds: step, After: float64(budget-n) * pair}
}

// LivePoint is a step as the live dashboard draws it on path.
func LivePoint(path string, st Step) live.TunePoint {
	return live.TunePoint{Path: path, N: st.N, Workers: st.Knobs.Workers, Pool: st.Knobs.Pool, Throughput: st.Throughput.Median,
		P99: st.Latency.Median, Limit: string(st.Diagnosis.Limit), Decision: nextText(st), BestWorkers: st.Best.Workers, BestPool: st.Best.Pool,
		Requests: st.Requests, Errors: st.Errors}
}
