package experiment

import (
	"context"
	"math"
	"time"

	"bbslab/loadtest/measure"
	"bbslab/loadtest/watch"
	"bbslab/machine"
)

// settleWindow is the span of each read while settle waits.
const settleWindow = 500 * time.Millisecond

// settle waits, before a disturbed point is measured again, until the
// cores are quiet by the baseline, the time is up, or nothing can be read.
func (x *experimentRunner) settle(ctx context.Context, lr *serverRun, where string) error {
	b := x.res.Disturbance.Baseline
	if b == nil {
		return nil
	}
	return x.settleOn(ctx, lr, where, b)
}

// settleSteal waits, before a calibration, until the steal is within the
// threshold of the least read: a calibration in a burst holds only as long.
func (x *experimentRunner) settleSteal(ctx context.Context, lr *serverRun) error {
	if x.res.Disturbance == nil || x.res.Disturbance.Steal == "" {
		return nil
	}
	floor, _ := x.judgeOf().Floor(true)
	return x.settleOn(ctx, lr, "calibrate", &measure.Baseline{Server: &measure.Cores{Level: math.Inf(1), Steal: &floor}})
}

// settleOn is settle holding the cores to the baseline b.
func (x *experimentRunner) settleOn(ctx context.Context, lr *serverRun, where string, b *measure.Baseline) error {
	limit := time.Duration(x.e.Disturbance.Settle)
	if x.e.Disturbance.Off || limit <= 0 {
		return nil
	}
	read := x.quietReader(lr)
	start := time.Now()
	defer func() { x.spent(time.Since(start)) }()
	prev, err := read(ctx)
	if err != nil {
		return nil // not readable: measure and judge as ever
	}
	last := ""
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(settleWindow):
		}
		cur, err := read(ctx)
		if err != nil {
			return nil
		}
		why := x.busyCores(lr, prev, cur, b)
		if why == "" {
			if last != "" {
				x.logf("%s: the cores were quiet again after %.1f s", where, time.Since(start).Seconds())
			}
			return nil
		}
		if last == "" {
			x.logf("%s: waiting for the cores to be quiet before measuring again (%s)", where, why)
		}
		last, prev = why, cur
		used := time.Since(start)
		// Room must stay for the wait so far, another window and the step.
		if used+settleWindow > limit || !x.fits(used+settleWindow+x.e.stepLength()) {
			x.logf("%s: the cores were still busy after %.1f s (%s): measuring it again anyway", where, used.Seconds(), why)
			return nil
		}
	}
}

type quietRead struct {
	at     time.Time
	server map[string]float64
	gen    *machine.OwnCounters
}

func (x *experimentRunner) quietReader(lr *serverRun) func(context.Context) (quietRead, error) {
	d, e := x.res.Disturbance, x.e
	var url string
	var stats []watch.Stat
	if e.Stats.URL != "" && d.Interference != "" {
		url = lr.x(e.Stats.URL)
		for _, s := range x.res.Stats {
			if s.Name == d.Interference || s.Name == d.CPU || s.Name == d.Steal && d.Steal != "" {
				stats = append(stats, s)
			}
		}
	}
	return func(ctx context.Context) (quietRead, error) {
		r := quietRead{at: time.Now()}
		if url != "" {
			m, at, err := watch.ReadNow(ctx, url, e.Stats.Format, stats)
			if err != nil {
				return r, err
			}
			r.at, r.server = at, m
		}
		if x.opt.serverCoresOnly {
			return r, nil
		}
		if c, err := machine.ReadCounters(); err == nil && c.Own != nil && c.Own.InterferenceSeconds != nil {
			r.gen = c.Own
		}
		return r, nil
	}
}

// busyCores says how the cores were busy between two reads beyond base, "" when quiet or not judged.
func (x *experimentRunner) busyCores(lr *serverRun, a, b quietRead, base *measure.Baseline) string {
	dt := b.at.Sub(a.at).Seconds()
	if dt <= 0 {
		return ""
	}
	rate := func(name string) (float64, bool) {
		va, okA := a.server[name]
		vb, okB := b.server[name]
		return 100 * (vb - va) / dt, okA && okB
	}
	d := x.res.Disturbance
	var srv, gen *measure.Span
	if v, ok := rate(d.Interference); ok {
		srv = &measure.Span{Interference: v, Capacity: 100 * float64(len(lr.cores()))}
		if v, ok := rate(d.CPU); ok {
			srv.Own = max(0, v)
		}
		if v, ok := rate(d.Steal); ok {
			srv.Steal, srv.HasSteal = v, true
		}
	}
	if a.gen != nil && b.gen != nil {
		gen = &measure.Span{Interference: 100 * (*b.gen.InterferenceSeconds - *a.gen.InterferenceSeconds) / dt,
			Capacity: 100 * float64(len(b.gen.CPUs))}
		gen.Own = max(0, 100*(b.gen.BusySeconds-a.gen.BusySeconds)/dt-gen.Interference)
	}
	return x.judgeOf().Busy(base, srv, gen)
}
