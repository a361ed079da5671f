package experiment

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/claim"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/tune"
	"bbslab/loadtest/watch"
)

// tuneSection is the file's [tune]: rather than swept, each run's server is tuned by package
// tune from each of Starts ("5/5": workers/pool), at Clients under SLO; the rest are tune.Spec's.
type tuneSection struct {
	Admin       string          `toml:"admin"`
	Clients     int             `toml:"clients"`
	SLO         string          `toml:"slo"`
	Starts      []string        `toml:"starts"`
	Goal        string          `toml:"goal"`
	Budget      int             `toml:"budget"`
	Repeats     int             `toml:"repeats"`
	MinWorkers  int             `toml:"min_workers"`
	MaxWorkers  int             `toml:"max_workers"`
	MinPool     int             `toml:"min_pool"`
	MaxPool     int             `toml:"max_pool"`
	CheckMinMax bool            `toml:"check_min_max"`
	SideBySide  int             `toml:"side_by_side"` // rounds measuring starts and winners again (0: 3)
	Thresholds  tune.Thresholds `toml:"thresholds"`
}

func (t tuneSection) on() bool { return len(t.Starts) > 0 }

// tuneMetrics are the figures a claim reads of a tuning (operand.Tune).
var tuneMetrics = []string{"winner_throughput", "start_throughput", "winner_resources", "winner_met", "application", "measurements"}

func (e *Experiment) checkTune() []error {
	t := e.Tune
	if !t.on() {
		return nil
	}
	var p problems
	if t.Admin == "" {
		p.add("tune.admin: missing: the admin listener's base URL, e.g. http://127.0.0.1:{{admin_port}}")
	}
	if t.Clients < 0 || t.Clients == 0 && len(e.Load.Clients) == 0 {
		p.add("tune.clients = %d: want the clients of each measurement (default load.clients' first)", t.Clients)
	}
	if _, err := loadtest.ParseSLO(t.slo(e)); err != nil {
		p.add("tune.slo: %v", err)
	}
	if t.SideBySide < 0 || t.SideBySide > 20 {
		p.add("tune.side_by_side = %d: want the rounds that measure the starts and winners again at the end, 1 to 20 (0: 3)", t.SideBySide)
	}
	if d := e.Load.Duration; d < 2*time.Second {
		p.add("tune: load.duration = %v: a tuning's steps need 2s or more (the stats are read every second)", d)
	}
	for _, s := range t.Starts {
		if _, err := watch.ParseKnobs(s); err != nil {
			p.add("tune.starts: %q: %v", s, err)
		}
	}
	return p
}

func (t tuneSection) slo(e *Experiment) string { return cmp.Or(t.SLO, e.Load.SLO) }

// tuneAll tunes each run's server from each start; only a server that fails to start stops the experiment.
func (x *experimentRunner) tuneAll(ctx context.Context) error {
	for _, run := range x.e.Runs {
		lr, err := x.start(ctx, run)
		if err != nil {
			lr.stop(x)
			return lr.failed(err)
		}
		first := len(x.res.Tunes)
		for _, s := range x.e.Tune.Starts {
			if ctx.Err() != nil {
				lr.stop(x)
				return ctx.Err()
			}
			tr := &outcome.TuneRun{Run: run.Name, Start: s}
			x.res.Tunes = append(x.res.Tunes, tr)
			x.logf("run %s: tuning from %s", run.Name, s)
			path := run.Name + " from " + s
			spec := x.tuneSpec(lr, s)
			x.feed.Begin(tune.LiveProgress(path, spec, 1))
			tr.Result, err = tune.Run(ctx, spec, x.opt.Target, tune.Options{Logf: x.logf,
				OnStep: func(st tune.Step) {
					x.feed.Tune(tune.LivePoint(path, st))
					if st.Next != nil {
						x.feed.Begin(tune.LiveProgress(path, spec, st.N+1))
					}
				},
				Watch: func(o *watch.Options) {
					o.OnRead, o.EnvironmentKeys = x.feed.OnRead, x.e.Stats.EnvironmentKeys
				},
				Restart: func(ctx context.Context, k watch.Knobs) error { return x.restartWith(ctx, lr, k) }})
			if err != nil {
				tr.Error = err.Error()
				x.logf("run %s: tuning from %s: %v", run.Name, s, err)
			}
		}
		if ctx.Err() == nil {
			x.confirmTunings(ctx, lr, x.res.Tunes[first:])
		}
		lr.stop(x)
	}
	return nil
}

// confirmTunings measures one run's tunings' starts and winners again side by side, for the claims.
func (x *experimentRunner) confirmTunings(ctx context.Context, lr *serverRun, tunes []*outcome.TuneRun) {
	var ks []watch.Knobs
	for _, tr := range tunes {
		if tr.Result != nil && len(tr.Result.Steps) > 0 {
			for _, k := range []watch.Knobs{tr.Result.Start, tr.Result.Winner} {
				if !slices.Contains(ks, k) {
					ks = append(ks, k)
				}
			}
		}
	}
	if len(ks) < 2 {
		return
	}
	rounds := cmp.Or(x.e.Tune.SideBySide, 3)
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = tuneKnobs(k)
	}
	x.logf("run %s: measuring %s again side by side, %d interleaved rounds", lr.run.Name, strings.Join(names, ", "), rounds)
	spec := x.tuneSpec(lr, x.e.Tune.Starts[0])
	x.feed.Begin(feed.Position{Run: lr.run.Name + ": " + strings.Join(names, ", ") + " side by side", Clients: spec.Load.Clients})
	ms, err := tune.SideBySide(ctx, spec, x.opt.Target, tune.Options{Logf: x.logf,
		Restart: func(ctx context.Context, k watch.Knobs) error { return x.restartWith(ctx, lr, k) }}, ks, rounds)
	if err != nil {
		x.logf("run %s: side by side: %v; the claims read the tunings' own figures", lr.run.Name, err)
		return
	}
	for i, m := range ms {
		x.logf("run %s: side by side: %s: %.0f/s (%.0f-%.0f), %s %.2f ms", lr.run.Name, names[i], m.Throughput.Median, m.Throughput.Min, m.Throughput.Max, m.LatencyName, m.Latency.Median)
	}
	for _, tr := range tunes {
		if tr.Result == nil || len(tr.Result.Steps) == 0 {
			continue
		}
		tr.StartSide = ms[slices.Index(ks, tr.Result.Start)]
		tr.WinnerSide = ms[slices.Index(ks, tr.Result.Winner)]
	}
}

// restartWith starts lr's server again, on the same ports, with k in its
// command's {{workers}}, {{pool}} and {{pool_min}}.
func (x *experimentRunner) restartWith(ctx context.Context, lr *serverRun, k watch.Knobs) error {
	if lr.fleet != nil {
		return fmt.Errorf("run %s has several replicas: they are not started again to set knobs", lr.run.Name)
	}
	cmd := strings.Join(slices.Concat(x.e.Server.Command, lr.run.Args), " ")
	if !strings.Contains(cmd, "{{workers}}") || !strings.Contains(cmd, "{{pool}}") {
		return fmt.Errorf("server.command has no {{workers}} and {{pool}} to start the board again with %s: put them in place of the numbers after -workers and -pool, with their first values in the run's vars", tuneKnobs(k))
	}
	x.logf("run %s: starting the board again with %s workers/connections (it cannot change them while it runs)", lr.run.Name, tuneKnobs(k))
	lr.stop(x)
	lr.vars["workers"], lr.vars["pool"], lr.vars["pool_min"] = strconv.Itoa(k.Workers), strconv.Itoa(k.Pool), strconv.Itoa(k.Min())
	return x.startProcess(ctx, lr)
}

func (x *experimentRunner) tuneSpec(lr *serverRun, start string) tune.Spec {
	e, t := x.e, x.e.Tune
	k, _ := watch.ParseKnobs(start) // checked
	objs, _ := loadtest.ParseSLO(t.slo(e))
	t.Repeats = cmp.Or(t.Repeats, e.Load.Repeats)
	load := e.settings(lr.run, cmp.Or(t.Clients, e.Load.Clients[0]), lr.x)
	load.Observers = []loadtest.Observer{x.feed.Observer()}
	return tune.Spec{Load: load, Admin: lr.x(t.Admin), Objectives: objs, Goal: tune.Goal(t.Goal), Start: k,
		MinWorkers: t.MinWorkers, MaxWorkers: t.MaxWorkers, MinPool: t.MinPool, MaxPool: t.MaxPool,
		Repeats: t.Repeats, Steps: t.Budget, CheckMinMax: t.CheckMinMax,
		Thresholds: t.Thresholds, Rules: e.Disturbance}
}

func tuneKnobs(k watch.Knobs) string { return fmt.Sprintf("%d/%d", k.Workers, k.Pool) }

func (e *Experiment) checkTuneOperand(o *claim.Operand) []string {
	var out []string
	if !slices.Contains(e.Tune.Starts, o.Tune) {
		out = append(out, fmt.Sprintf("tune = %q is not one of tune.starts %v", o.Tune, e.Tune.Starts))
	}
	if e.run(o.Run) == nil {
		out = append(out, fmt.Sprintf("run %q is not a run of this file", o.Run))
	}
	if !slices.Contains(tuneMetrics, o.Metric) {
		out = append(out, fmt.Sprintf("metric = %q: a tuning's figure is one of %s", o.Metric, strings.Join(tuneMetrics, ", ")))
	}
	if o.Clients != 0 || o.At != "" || o.Label != "" || o.Reading != "" || o.Profile != "" || o.Truth != "" {
		out = append(out, "tune reads a tuning: give run and metric with it, no clients, at, label, reading, profile or truth")
	}
	return out
}
