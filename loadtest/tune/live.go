package tune

import (
	"cmp"
	"fmt"
	"time"

	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/watch"
)

// Feed has the tuning of spec feed fd as a command's live dashboard shows
// it: the load's seconds (an observer added to spec.Load), the target's
// readings (o.Watch) and, on a path named for spec.Start ("from 5/5", or
// "from the knobs in force"), where the tuning stands, its first step
// begun now, and each step's point on the workers × pool plane (o.OnStep).
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

// LiveProgress is where a tuning on path stands for the live dashboard's
// progress line when its step n starts: step n of the budget, at the
// load's clients, with the step's planned time (the first: one warm-up,
// as measure warms a setting before its first repeat only, and the
// measured spans; each later: its setting and the best beside it, warmed
// up before each of their turns) and the budget's rest after it. A tuning
// that stops early ends before the bar does; the steps beyond the budget
// (a disturbed step measured again) stay at its last.
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

// LivePoint is a step as the live dashboard draws it on path (e.g.
// "page from 5/5"): its setting, figures, limit, decision and the best
// so far.
func LivePoint(path string, st Step) live.TunePoint {
	return live.TunePoint{Path: path, N: st.N, Workers: st.Knobs.Workers, Pool: st.Knobs.Pool, Throughput: st.Throughput.Median,
		P99: st.Latency.Median, Limit: string(st.Diagnosis.Limit), Decision: nextText(st), BestWorkers: st.Best.Workers, BestPool: st.Best.Pool,
		Requests: st.Requests, Errors: st.Errors}
}
