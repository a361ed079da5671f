package tune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/watch"
)

// Spec is one tuning: the load, the target, the objectives and the budget.
type Spec struct {
	Load       loadtest.Settings
	Admin      string               `toml:"admin" flag:"admin" default:"http://127.0.0.1:6060" help:"base URL of the target's admin listener (its stats and knobs)"`
	Objectives []loadtest.Objective `toml:"-"`
	Goal       Goal                 `toml:"goal" flag:"goal" default:"throughput" help:"what is best among the settings meeting -slo: throughput (the most; within the noise, the fewest workers and connections) or resources (the fewest)"`
	// Start is the first setting (zero: the knobs in force).
	Start       watch.Knobs   `toml:"-"`
	MinWorkers  int           `toml:"min_workers" flag:"min-workers" default:"1" help:"fewest workers the tuner tries"`
	MaxWorkers  int           `toml:"max_workers" flag:"max-workers" default:"100" help:"most workers the tuner tries"`
	MinPool     int           `toml:"min_pool" flag:"min-pool" default:"1" help:"fewest connections the tuner tries"`
	MaxPool     int           `toml:"max_pool" flag:"max-pool" default:"100" help:"most connections the tuner tries"`
	Repeats     int           `toml:"repeats" flag:"repeats" default:"3" help:"runs of each step's setting, after the first step in as many interleaved rounds with the best (their spread, min-max, is its noise)"`
	Steps       int           `toml:"budget" flag:"budget" default:"12" help:"steps at most, each after the first measuring its setting side by side with the best (the min = max check counts)"`
	Time        time.Duration `toml:"budget_time" flag:"budget-time" help:"stop starting steps after this wall time (0: no bound)"`
	CheckMinMax bool          `toml:"check_min_max" flag:"check-min-max" help:"measure the winner once more with the pool's minimum at 1: did min = max matter?"`
	// Knobs are the knobs the tuner moves (nil: DefaultKnobs).
	Knobs []Knob `toml:"-"`
	Thresholds
	Rules measure.Rules `toml:"-"`
}

// Complete fills in and checks a tuning from a command line.
func (s *Spec) Complete(clients int, slo, start string, durationSet, warmupSet bool) error {
	if !durationSet && s.Load.MaxRequests == 0 {
		s.Load.Duration = 3 * time.Second
	}
	if !warmupSet {
		s.Load.Warmup = time.Second
	}
	s.Load.Clients = clients
	var err error
	if s.Objectives, err = loadtest.ParseSLO(slo); err != nil {
		return cli.Usagef("-slo: %v", err)
	}
	if start != "" {
		if s.Start, err = watch.ParseKnobs(start); err != nil {
			return cli.Usagef("-start %q: %v", start, err)
		}
	}
	if err := cli.CheckHTTPURL(s.Admin); err != nil {
		return cli.Usagef("-admin %q: %v", s.Admin, err)
	}
	return cli.Usage(s.Load.Validate())
}

// Describe says in a line what the tuning will do.
func (s *Spec) Describe() string {
	return fmt.Sprintf("%s at %d clients, %s measured %d times per setting, objectives %s, goal %s, budget %d steps",
		s.Load.Requests[0].URL, s.Load.Clients, s.Load.Duration, max(s.Repeats, 1), s.objectives(), s.Goal, s.Steps)
}

func (s *Spec) objectives() string {
	var objs []string
	for _, o := range s.Objectives {
		objs = append(objs, o.Text)
	}
	return strings.Join(objs, ",")
}

// Options are what the caller attaches to a tuning.
type Options struct {
	// Logf gets one line per step, and the conclusion.
	Logf func(format string, a ...any)
	// OnStep is told of each step once it is decided.
	OnStep func(Step)
	// Watch, when set, completes the watcher's options of every measurement.
	Watch func(*watch.Options)
	// Restart, when set, starts the target again with k.
	Restart func(ctx context.Context, k watch.Knobs) error
	// Measurer, when set, takes the measurements in place of the load engine.
	Measurer Measurer
}

// A Step is one measured setting, its limit, and what the tuner did next.
type Step struct {
	N int `json:"n"`
	Measurement
	Diagnosis Diagnosis `json:"diagnosis"`
	// Beside is the best as measured in the same rounds (absent for the
	// first step); Compared says how the step stands against it.
	Beside   *Measurement `json:"beside,omitempty"`
	Compared string       `json:"compared"`
	// Best is the best setting after this step.
	Best     watch.Knobs  `json:"best"`
	Decision string       `json:"decision"`
	Why      string       `json:"why"`
	Next     *watch.Knobs `json:"next,omitempty"`
}

// The spec's defaults of Repeats and Steps.
const (
	DefaultRepeats = 3
	DefaultBudget  = 12
)

var errSpec = errors.New("tune")

// check fills in the spec's defaults and checks it, returning its knobs.
func (s *Spec) check(t watch.Target, measured bool) (knobSet, error) {
	if t.Tuning == nil || !measured && (t.Tuning.Set == nil || t.Tuning.Get == nil) {
		return nil, fmt.Errorf("%w: the target has no knobs a tuner can set while it runs", errSpec)
	}
	if _, err := url.Parse(s.Admin); err != nil || !strings.HasPrefix(s.Admin, "http") {
		return nil, fmt.Errorf("%w: admin %q: want the http:// base URL of the target's admin listener", errSpec, s.Admin)
	}
	s.Repeats = cmp.Or(s.Repeats, DefaultRepeats)
	s.Steps = cmp.Or(s.Steps, DefaultBudget)
	s.Goal = cmp.Or(s.Goal, MostThroughput)
	ks, err := newKnobSet(*s)
	if err != nil {
		return nil, err
	}
	out := ks.outside(s.Start)
	switch {
	case s.Goal != MostThroughput && s.Goal != LeastResources:
		err = fmt.Errorf("%w: goal %q: want %s or %s", errSpec, s.Goal, MostThroughput, LeastResources)
	case s.Repeats < 1 || s.Repeats > 20:
		err = fmt.Errorf("%w: repeats %d: want 1 to 20", errSpec, s.Repeats)
	case s.Steps < 1 || s.Steps > 1000:
		err = fmt.Errorf("%w: steps %d: want 1 to 1000", errSpec, s.Steps)
	case s.Start != (watch.Knobs{}) && out != "":
		err = fmt.Errorf("%w: start %s lies outside the bounds: %s", errSpec, short(s.Start), out)
	case s.CheckMinMax && s.Steps < 2:
		err = fmt.Errorf("%w: steps %d: the min = max check takes one of the steps; want at least 2", errSpec, s.Steps)
	case len(s.Objectives) == 0:
		err = fmt.Errorf("%w: no objective: give an SLO such as p99<10ms", errSpec)
	}
	if err == nil {
		err = s.Thresholds.fill()
	}
	if errs := s.Rules.Check("tune"); err == nil && len(errs) > 0 {
		err = fmt.Errorf("%w: %w", errSpec, errors.Join(errs...))
	}
	if err == nil {
		l := s.Load
		err = l.Validate()
	}
	return ks, err
}

// latencyOf is the percentile the objectives name first (p99 without one).
func latencyOf(objs []loadtest.Objective) loadtest.Objective {
	for _, o := range objs {
		if o.Quantile > 0 {
			return o
		}
	}
	return loadtest.Objective{Metric: "p99", Quantile: 0.99}
}

type tuner struct {
	spec     Spec
	opt      Options
	target   watch.Target
	m        Measurer
	work     watch.Work
	latency  loadtest.Objective
	knobs    knobSet
	judge    measure.Judge
	measured []*Measurement
	// best is the best so far, as measured when it became the best.
	best  *Measurement
	steps []Step
	// taken counts the steps, disturbed ones included.
	taken, measurements int
	retried             map[watch.Knobs]int
	// carry is the best and the step of an undecided attempt, to pool.
	carry   [2]*Measurement
	started time.Time
}

func newTuner(spec Spec, t watch.Target, opt Options) (*tuner, error) {
	ks, err := spec.check(t, opt.Measurer != nil)
	if err != nil {
		return nil, err
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	tn := &tuner{spec: spec, opt: opt, target: t, m: opt.Measurer, knobs: ks, latency: latencyOf(spec.Objectives), retried: map[watch.Knobs]int{}}
	tn.judge.Rules = &tn.spec.Rules
	if t.Tuning.Work != nil && len(spec.Load.Requests) > 0 {
		tn.work, _ = t.Tuning.Work(spec.Load.Requests[0].URL)
	}
	if tn.m != nil {
		return tn, nil
	}
	o := watch.Options{StatsURL: strings.TrimSuffix(spec.Admin, "/") + t.StatsPath, Stats: tn.stats()}
	if opt.Watch != nil {
		opt.Watch(&o)
	}
	w, err := t.Watcher(o)
	if err != nil {
		return nil, err
	}
	tn.m = &liveMeasurer{t: tn, watcher: w}
	return tn, nil
}

func (t *tuner) visited(k watch.Knobs) bool {
	return slices.ContainsFunc(t.measured, func(m *Measurement) bool { return m.Knobs == k })
}

// lower is the measured setting like k with the next fewer workers.
func (t *tuner) lower(k watch.Knobs) *Measurement {
	var out *Measurement
	for _, m := range t.measured {
		if t.knobs.with(m.Knobs, 0, k.Workers) == k && m.Knobs.Workers < k.Workers && (out == nil || m.Knobs.Workers > out.Knobs.Workers) {
			out = m
		}
	}
	return out
}

func (t *tuner) budgetLeft(reserve int) (bool, string) {
	if t.taken+reserve >= t.spec.Steps {
		return false, fmt.Sprintf("the budget of %d steps is spent", t.spec.Steps)
	}
	if t.spec.Time > 0 && time.Since(t.started) >= t.spec.Time {
		return false, fmt.Sprintf("the budget of %v is spent", t.spec.Time)
	}
	return true, ""
}
