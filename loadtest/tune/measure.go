package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/watch"
)

// A Measurement is one setting measured Repeats times, by medians.
type Measurement struct {
	Knobs      watch.Knobs     `json:"knobs"`
	Throughput loadtest.Spread `json:"throughput"`
	// Throughputs are each run's, in the order measured.
	Throughputs []float64       `json:"throughputs,omitempty"`
	Band        loadtest.Spread `json:"throughput_band"`
	// Level is the throughput relative to the tuning's first step.
	Level float64 `json:"level,omitempty"`
	// Latency is the percentile the objectives name (p99 without one), in ms.
	Latency     loadtest.Spread `json:"latency_ms"`
	LatencyName string          `json:"latency_name"`
	MeanMs      float64         `json:"mean_ms"`
	Objectives  []Verdict       `json:"objectives"`
	Met         bool            `json:"met"` // every objective's median meets it
	Readings    Readings        `json:"readings"`
	Runs        int             `json:"runs"`
	Requests    int64           `json:"requests"`
	Errors      int64           `json:"errors"`
	Seconds     float64         `json:"seconds"`
	// Restarted says the target was started again to set the knobs.
	Restarted bool     `json:"restarted,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
	// runs are the results summarised, kept to pool with a later attempt.
	runs []*loadtest.Result
}

// A Verdict is one objective measured over a setting's repeats.
type Verdict struct {
	Objective string          `json:"objective"`
	Value     loadtest.Spread `json:"value"`
	Pass      bool            `json:"pass"`
	values    []float64       // each run's
}

// Readings are what the target's stats and the generator said; a reading not read is in Absent.
type Readings struct {
	WorkerWaitMs  float64 `json:"worker_queue_wait_ms"`
	WorkersBusy   float64 `json:"workers_busy"`
	WorkersQueued float64 `json:"workers_queued"`
	PoolWaitMs    float64 `json:"connection_wait_ms"`
	PoolInUse     float64 `json:"pool_in_use"`
	PoolWaiting   float64 `json:"acquires_waiting"`
	CoresBusy     float64 `json:"cores_busy_percent"`
	MachineIdle   float64 `json:"machine_idle_percent"`
	CPUWaitMs     float64 `json:"cpu_wait_ms"`
	Work          string  `json:"work,omitempty"`
	Queries       float64 `json:"queries_per_request"`
	DatabaseMs    float64 `json:"database_ms"`
	GeneratorCPU  float64 `json:"generator_cpu_percent"`
	Interference  float64 `json:"others_on_its_cores_percent"`
	// GeneratorShared is the generator's own CPU when it is not pinned.
	GeneratorShared float64  `json:"generator_cpu_shared_percent"`
	GeneratorSteal  float64  `json:"generator_steal_percent"`
	ErrorShare      float64  `json:"error_percent"`
	Absent          []string `json:"absent,omitempty"`
}

func (r Readings) has(name string) bool { return !slices.Contains(r.Absent, name) }

// The readings' names, as Absent gives them.
const (
	rWorkerWait     = "worker wait"
	rWorkersBusy    = "workers busy"
	rWorkersQueued  = "workers queued"
	rPoolWait       = "connection wait"
	rPoolInUse      = "connections in use"
	rPoolWaiting    = "acquires waiting"
	rCoresBusy      = "cores busy"
	rMachineIdle    = "machine idle"
	rCPUWait        = "CPU wait"
	rQueries        = "queries per request"
	rDatabase       = "database time"
	rInterference   = "others on its cores"
	rGeneratorSteal = "generator steal"
)

func (t *tuner) roles() []role {
	tn := t.target.Tuning
	rs := []role{
		{rWorkerWait, tn.WorkerWait, func(r *Readings) *float64 { return &r.WorkerWaitMs }},
		{rWorkersBusy, tn.WorkersBusy, func(r *Readings) *float64 { return &r.WorkersBusy }},
		{rWorkersQueued, tn.WorkersQueued, func(r *Readings) *float64 { return &r.WorkersQueued }},
		{rPoolWait, tn.PoolWait, func(r *Readings) *float64 { return &r.PoolWaitMs }},
		{rPoolInUse, tn.PoolInUse, func(r *Readings) *float64 { return &r.PoolInUse }},
		{rPoolWaiting, tn.PoolWaiting, func(r *Readings) *float64 { return &r.PoolWaiting }},
		{rCoresBusy, tn.CoresBusy, func(r *Readings) *float64 { return &r.CoresBusy }},
		{rMachineIdle, tn.MachineIdle, func(r *Readings) *float64 { return &r.MachineIdle }},
		{rCPUWait, tn.CPUWait, func(r *Readings) *float64 { return &r.CPUWaitMs }},
		{rQueries, "", func(r *Readings) *float64 { return &r.Queries }},
		{rDatabase, "", func(r *Readings) *float64 { return &r.DatabaseMs }},
	}
	if t.work.Name != "" {
		rs[9].stat, rs[10].stat = t.work.Queries.Name, t.work.Database.Name
	}
	return append(rs, role{rInterference, t.target.Interference.Name, func(r *Readings) *float64 { return &r.Interference }})
}

type role struct {
	name, stat string
	field      func(*Readings) *float64
}

func (t *tuner) stats() []watch.Stat {
	want := map[string]bool{}
	for _, r := range t.roles() {
		want[r.stat] = r.stat != ""
	}
	var out []watch.Stat
	for _, s := range t.target.Stats {
		if want[s.Name] {
			out = append(out, s)
			want[s.Name] = false
		}
	}
	if t.work.Name != "" {
		out = append(out, t.work.Queries, t.work.Database)
	}
	if i := t.target.Interference; i.Name != "" && want[i.Name] {
		out = append(out, i)
	}
	return out
}

// A Measurer reads and sets the target's knobs and runs the load.
type Measurer interface {
	// Get returns the setting in force.
	Get(ctx context.Context) (watch.Knobs, error)
	// Set sets k, reporting whether the target was started again.
	Set(ctx context.Context, k watch.Knobs) (restarted bool, err error)
	// Run runs the spec's load n times at k; first numbers the runs.
	Run(ctx context.Context, k watch.Knobs, first, n int) ([]*loadtest.Result, error)
}

func (t *tuner) measure(ctx context.Context, k watch.Knobs) (*Measurement, error) {
	t0 := time.Now()
	restarted, err := t.m.Set(ctx, k)
	if err != nil {
		return nil, err
	}
	runs, err := t.m.Run(ctx, k, 0, t.spec.Repeats)
	if err != nil {
		return nil, err
	}
	m := t.summarise(k, runs)
	m.Seconds = round(time.Since(t0).Seconds(), 2)
	m.Restarted = restarted
	return m, nil
}

type liveMeasurer struct {
	t       *tuner
	watcher loadtest.Watcher
}

func (l *liveMeasurer) Get(ctx context.Context) (watch.Knobs, error) {
	return l.t.target.Tuning.Get(ctx, l.t.spec.Admin)
}

func (l *liveMeasurer) Set(ctx context.Context, k watch.Knobs) (bool, error) {
	got, err := l.t.target.Tuning.Set(ctx, l.t.spec.Admin, k)
	restarted := false
	if errors.Is(err, watch.ErrRestart) && l.t.opt.Restart != nil {
		l.t.opt.Logf("set %s: %v: starting the target again with it", short(k), err)
		if err = l.t.opt.Restart(ctx, k); err == nil {
			got, err = l.Get(ctx)
		}
		if err != nil {
			return false, fmt.Errorf("set %s by starting the target again: %w", short(k), err)
		}
		restarted = true
	}
	if err != nil {
		return false, fmt.Errorf("set %s: %w", short(k), err)
	}
	if got.Workers != k.Workers || got.Pool != k.Pool || got.Min() != k.Min() {
		return false, fmt.Errorf("set %s: the target has %s in force", short(k), short(got))
	}
	return restarted, nil
}

func (l *liveMeasurer) Run(ctx context.Context, k watch.Knobs, first, n int) ([]*loadtest.Result, error) {
	var runs []*loadtest.Result
	for i := range n {
		s := l.t.spec.Load
		s.Name = fmt.Sprintf("%s #%d", short(k), first+i+1)
		if i > 0 {
			s.Warmup = 0
		}
		s.Watcher = l.watcher
		if s.Seed != 0 {
			s.Seed += uint64(first + i)
		}
		res, err := loadtest.Run(ctx, s)
		if err != nil {
			return nil, err
		}
		if res.Interrupted {
			return nil, ctx.Err()
		}
		runs = append(runs, res)
	}
	return runs, nil
}

// SideBySide measures each of ks once a round for rounds rounds, returned in the order of ks.
func SideBySide(ctx context.Context, spec Spec, target watch.Target, opt Options, ks []watch.Knobs, rounds int) ([]*Measurement, error) {
	t, err := newTuner(spec, target, opt)
	if err != nil {
		return nil, err
	}
	return t.rounds(ctx, ks, rounds)
}

func (t *tuner) rounds(ctx context.Context, ks []watch.Knobs, rounds int) ([]*Measurement, error) {
	restarted := make([]bool, len(ks))
	runs, err := measure.Rounds(ctx, measure.Plan{Rounds: rounds, Settings: len(ks), Rotate: true}, func(ctx context.Context, r, i int) (*loadtest.Result, error) {
		re, err := t.m.Set(ctx, ks[i])
		if err != nil {
			return nil, err
		}
		restarted[i] = restarted[i] || re
		rs, err := t.m.Run(ctx, ks[i], r, 1)
		if err != nil {
			return nil, err
		}
		return rs[0], nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*Measurement, len(ks))
	for i, k := range ks {
		out[i] = t.summarise(k, runs[i])
		out[i].Restarted = restarted[i]
	}
	return out, nil
}

func (t *tuner) summarise(k watch.Knobs, runs []*loadtest.Result) *Measurement {
	m := &Measurement{Knobs: k, Runs: len(runs), LatencyName: t.latency.Metric, runs: runs}
	var tput, lat, mean []float64
	values := map[string][]float64{}
	byObj := make([][]float64, len(t.spec.Objectives))
	for _, res := range runs {
		tput = append(tput, res.Total.Throughput)
		lat = append(lat, ms(res.Total.Histogram.Quantile(t.latency.Quantile)))
		mean = append(mean, res.Total.MeanMs)
		m.Requests += res.Total.Requests
		m.Errors += res.Total.Errors
		for i, v := range loadtest.EvaluateSLO(res, t.spec.Objectives) {
			byObj[i] = append(byObj[i], v.Value)
		}
		t.readRun(res, values)
		m.Warnings = append(m.Warnings, res.Warnings...)
	}
	m.Throughputs = tput
	m.Throughput, m.Latency, m.MeanMs = loadtest.SpreadOf(tput), loadtest.SpreadOf(lat), loadtest.Median(mean)
	m.Band = measure.Band(m.Throughput, t.spec.Rules.NoiseFloor)
	m.Met = true
	for i, o := range t.spec.Objectives {
		v := Verdict{Objective: o.Text, Value: loadtest.SpreadOf(byObj[i]), values: byObj[i]}
		v.Pass = passes(o, v.Value.Median)
		m.Met = m.Met && v.Pass
		m.Objectives = append(m.Objectives, v)
	}
	for _, r := range t.roles() {
		vs := values[r.name]
		if len(vs) == 0 {
			m.Readings.Absent = append(m.Readings.Absent, r.name)
			continue
		}
		*r.field(&m.Readings) = round(loadtest.Median(vs), 3)
	}
	m.Readings.Work = t.work.Name
	m.Readings.GeneratorCPU = round(loadtest.Median(values["generator"]), 1)
	m.Readings.GeneratorShared = round(loadtest.Median(values["generator shared"]), 1)
	m.Readings.GeneratorSteal = round(loadtest.Median(values["generator steal"]), 1)
	m.Readings.ErrorShare = round(loadtest.Median(values["errors"]), 3)
	m.Warnings = slices.Compact(slices.Sorted(slices.Values(m.Warnings)))
	return m
}

func (t *tuner) readRun(res *loadtest.Result, values map[string][]float64) {
	seen, err := watch.Of(res)
	if err == nil && seen.Server != nil {
		for _, r := range t.roles() {
			if r.stat == "" {
				continue
			}
			if v, ok := seen.Server.Value(r.stat); ok {
				values[r.name] = append(values[r.name], v)
			}
		}
	}
	values["generator"] = append(values["generator"], generatorShare(res.Cost))
	values["generator shared"] = append(values["generator shared"], generatorShared(res.Cost))
	values["generator steal"] = append(values["generator steal"], generatorSteal(res.Cost))
	share := 0.0
	if res.Total.Requests > 0 {
		share = 100 * float64(res.Total.Errors) / float64(res.Total.Requests)
	}
	values["errors"] = append(values["errors"], share)
}

// generatorShare is the generator's CPU as a share of its CPUs, in %.
func generatorShare(c loadtest.Cost) float64 {
	cpu, ok := c.CPU()
	if !ok {
		return 0
	}
	n := runtime.NumCPU()
	if c.Cores != nil && len(c.Cores.CPUs) > 0 {
		n = len(c.Cores.CPUs)
	}
	return cpu / float64(n)
}

func generatorShared(c loadtest.Cost) float64 {
	cpu, ok := c.CPU()
	if !ok || c.Cores != nil && c.Cores.Pinned {
		return 0
	}
	return cpu
}

// generatorSteal is the steal of the generator's CPUs, in % of one core.
func generatorSteal(c loadtest.Cost) float64 {
	if c.Cores == nil || c.Cores.Steal == nil {
		return 0
	}
	return *c.Cores.Steal
}

func passes(o loadtest.Objective, v float64) bool {
	lim := limit(o)
	if o.Less {
		return v < lim
	}
	return v > lim
}

// limit is o's limit in the unit its values take (ms for a latency).
func limit(o loadtest.Objective) float64 {
	if o.Quantile > 0 || o.Metric == "mean" || o.Metric == "max" {
		return ms(time.Duration(o.Limit))
	}
	return o.Limit
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// knobsText is a setting in words: "8 workers / 2-8 connections".
func knobsText(k watch.Knobs) string {
	return fmt.Sprintf("%d workers / %s connections", k.Workers, poolText(k))
}

// short is a setting in a few characters: "8/8", "8/2-8".
func short(k watch.Knobs) string { return fmt.Sprintf("%d/%s", k.Workers, poolText(k)) }

func poolText(k watch.Knobs) string {
	if k.PoolMin != 0 && k.PoolMin != k.Pool {
		return fmt.Sprintf("%d-%d", k.PoolMin, k.Pool)
	}
	return fmt.Sprint(k.Pool)
}
