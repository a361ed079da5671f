package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/calibrate"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

func (e *Experiment) checkCalibrate() []error {
	c := &e.Calibrate
	if c.Var == "" {
		if c.Run != "" || c.Set != "" || len(c.Reading) > 0 {
			return []error{errors.New("calibrate.var: missing: the placeholder the calibrated wait fills, e.g. \"db_latency\"")}
		}
		return nil
	}
	var bad problems
	if !strings.Contains(c.Set, "{{"+c.Var+"}}") {
		bad.add("calibrate.set = %q: want a URL that holds {{%s}}, POSTed to set the wait on the running server", c.Set, c.Var)
	}
	if e.run(c.Run) == nil {
		bad.add("calibrate.run = %q: want the name of one of the file's runs", c.Run)
	}
	if len(c.Reading) == 0 {
		bad.add("calibrate.reading: missing: the stats readings that measure the operating point")
	}
	for _, r := range append(slices.Clone(c.Reading), c.CPU, c.Units) {
		if r != "" && !e.hasReading(r) {
			bad.add("calibrate: reading %q is not one of the file's [[stats.reading]] names", r)
		}
	}
	if c.Share != "" && (e.hasReading(c.Share) || !c.Relative) {
		bad.add("calibrate.share = %q: want a new reading's name, with relative = true", c.Share)
	}
	if c.CPU == "" {
		bad.add("calibrate.cpu: missing: the reading of the server's CPU in %% of a core")
	}
	return append(bad, c.Check(func(key string) string { return "calibrate." + key })...)
}

func (e *Experiment) hasReading(name string) bool {
	return slices.ContainsFunc(e.Stats.Stats, func(r watch.Stat) bool { return r.Name == name })
}

// calibrate runs the calibration on a server of its own and sets its var.
func (x *experimentRunner) calibrate(ctx context.Context) error {
	c := x.e.Calibrate
	var run runSpec // none when -runs left it out
	if r := x.e.run(c.Run); r != nil {
		run = *r
	}
	run.Name = "calibration: " + run.Name
	x.res.Calibration = calibrate.New(c) // what the result says if the server does not start
	x.vars[c.Var] = "0s"
	lr, err := x.launch(ctx, run, &outcome.Run{Name: run.Name})
	defer lr.stop(x)
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	cal, err := x.calibrateOn(ctx, lr)
	x.res.Calibration = cal
	if err != nil {
		return err
	}
	x.note(cal.Summary())
	x.vars[c.Var] = cal.Value
	return nil
}

// calibrateOn runs the calibration's probes on lr's server, left with the
// chosen wait; the probes' spans become the steps' baseline.
func (x *experimentRunner) calibrateOn(ctx context.Context, lr *serverRun) (*calibrate.Calibration, error) {
	e, c := x.e, x.e.Calibrate
	name := lr.run.Name
	probeLen := time.Duration(c.Warmup) + time.Duration(c.Duration)
	steps := float64(max(0, x.total-x.seq)) * e.stepLength().Seconds()
	j := &probeJudge{x: x}
	n := 0
	if err := x.settleSteal(ctx, lr); err != nil {
		return nil, err
	}
	once := func(ctx context.Context, wait time.Duration) (*loadtest.Result, error) {
		if err := x.setWait(ctx, []*serverRun{lr}, calibrate.FormatWait(wait)); err != nil {
			return nil, fmt.Errorf("calibrate: %w", err)
		}
		s := e.settings(runSpec{Name: name}, c.Clients, lr.x) // [load]'s, not the run's own
		s.Warmup, s.Duration = time.Duration(c.Warmup), time.Duration(c.Duration)
		n++
		x.feed.Begin(feed.Position{Run: name, Phase: "calibrating", Step: n, Steps: max(c.Probes+2, n), Clients: c.Clients,
			StepSeconds: probeLen.Seconds(), After: float64(max(0, c.Probes+2-n))*probeLen.Seconds() + steps})
		w, err := x.watcher(lr, "")
		if err != nil {
			return nil, fmt.Errorf("calibrate: watch the server: %w", err)
		}
		s.Watcher, s.Observers = w, []loadtest.Observer{x.feed.Observer()}
		r, err := loadtest.Run(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("calibrate: load %d clients: %w", c.Clients, err)
		}
		return r, nil
	}
	measure := func(ctx context.Context, wait time.Duration) (*loadtest.Result, error) {
		for attempt := 1; ; attempt++ {
			start := time.Now()
			r, err := once(ctx, wait)
			if attempt > 1 {
				x.spent(time.Since(start))
			}
			if err != nil || r.Interrupted {
				return r, err
			}
			var srv, gen *measure.Span
			var server map[string]float64
			if seen, err := watch.Of(r); err == nil {
				server = seen.Server.Map()
				srv, gen, _ = x.spans(lr.cores(), r, server)
			}
			why := j.judge(srv, gen)
			if why == "" || attempt >= e.Disturbance.MaxAttempts || !x.fits(probeLen) {
				if why != "" {
					x.note(fmt.Sprintf("calibration probe at %s = %s was disturbed (%s) and used: no attempt or time left (disturbance.max_attempts, max_extra)", c.Var, calibrate.FormatWait(wait), why))
				}
				j.accept(srv, gen)
				return r, nil
			}
			x.logf("calibrate: %s = %s: disturbed (%s): probing it again", c.Var, calibrate.FormatWait(wait), why)
			x.res.Disturbance.Remeasured++
			j.disturbed = append(j.disturbed, disturbedProbe(c, wait, r, server, why))
			if err := x.settleOn(ctx, lr, "calibrate", &j.accepted); err != nil {
				return nil, err
			}
		}
	}
	cal, err := calibrate.Run(ctx, c, measure, x.logf)
	cal.Disturbed = j.disturbed
	if base := j.baseline(cal); base.Server != nil || base.Generator != nil {
		x.res.Disturbance.Baseline = base
		if base.Server != nil && base.Server.Steal != nil {
			cal.Steal = ptrTo(round1(*base.Server.Steal))
		}
	}
	if err == nil { // the page stops saying "calibrating"
		x.feed.Begin(feed.Position{Run: name, Step: len(cal.Probes), Steps: len(cal.Probes), Clients: c.Clients, After: steps})
	}
	return cal, err
}

func disturbedProbe(c calibrate.Spec, wait time.Duration, r *loadtest.Result, server map[string]float64, why string) calibrate.Probe {
	p := calibrate.Probe{WaitMs: wait.Seconds() * 1000, Throughput: r.Total.Throughput, At: r.Start, Note: why}
	if cpu, ok := server[c.CPU]; ok && p.Throughput > 0 {
		p.CPUPerRequestMs = cpu / 100 / p.Throughput * 1000
	}
	for _, name := range c.Reading {
		if v, ok := server[name]; ok {
			p.Reading = v
			break
		}
	}
	return p
}

// probeJudge judges each probe against those accepted before it (the
// first against none: a burst there shows as disagreeing no-wait probes).
type probeJudge struct {
	x         *experimentRunner
	accepted  measure.Baseline
	server    []*measure.Span // per accepted probe, in the order of Calibration.Probes
	generator []*measure.Span
	disturbed []calibrate.Probe
}

// judge says why a probe's spans are disturbed, "" when they are not.
func (j *probeJudge) judge(srv, gen *measure.Span) string {
	base := &j.accepted
	if base.Server == nil && base.Generator == nil {
		base = nil
	}
	jd := j.x.judgeOf()
	saved := jd.Baseline
	jd.Baseline = base
	v := jd.Judge(srv, gen)
	jd.Baseline = saved
	return strings.TrimPrefix(v.Why, "disturbed: ")
}

func (j *probeJudge) accept(srv, gen *measure.Span) {
	j.server = append(j.server, srv)
	j.generator = append(j.generator, gen)
	j.accepted.Add(srv, gen)
}

// baseline is made of the spans of the probes cal used (not Dropped).
func (j *probeJudge) baseline(cal *calibrate.Calibration) *measure.Baseline {
	b := &measure.Baseline{Source: measure.FromCalibration}
	for i, p := range cal.Probes {
		if p.Dropped == "" && i < len(j.server) {
			b.Add(j.server[i], j.generator[i])
		}
	}
	return b
}
