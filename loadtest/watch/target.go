package watch

import (
	"context"
	"encoding/json"

	"bbslab/loadtest"
)

// A Target describes a server under test to the tools: what the watcher,
// the charts and the experiment runner know of it, as one value built once
// by the target's package (for the board: contract.Board) and passed
// whole. It lives here, below the charts and the experiment runner, so
// that they take it without importing the target's package.
type Target struct {
	// StatsPath is the path of the stats JSON on the target's admin
	// listener.
	StatsPath string
	// MetricPrefix begins the names of the target's own Prometheus
	// metrics (for the board, "bbs_"): a Prometheus endpoint with none of
	// them is not this target (Describe).
	MetricPrefix string
	// Stats are the numbers of the stats JSON (or their Prometheus
	// forms) watched in each run, with how the charts, the live dashboard
	// and the sweep table show them;
	// Charts the server charts their Chart fields name.
	Stats  []Stat
	Charts []Chart
	// EnvironmentKeys names the top-level objects of the stats JSON copied
	// into each result's environment.
	EnvironmentKeys []string
	// States are the request states the live dashboard stacks as "what
	// requests are doing now".
	States []State
	// ProcessCPU is the target's own CPU over a run's measured span, in %
	// of one core: what a calibration reads.
	ProcessCPU Stat
	// Interference is the CPU time of the target's cores that the target
	// did not use (other processes, kernel work not charged to it, the
	// hypervisor's steal) over a run's measured span, in % of one core;
	// Steal is the hypervisor's part of it, where the OS counts steal. An
	// empty Name: the target gives none. A runner reads them at every
	// step, whatever else it watches, to tell a disturbed span.
	Interference, Steal Stat
	// Validate checks the target at url before any load; nil: the target
	// has no validation.
	Validate func(ctx context.Context, url string) error
	// StartHint returns, for a server command line argv that did not come
	// up, a hint on what to start first, or "".
	StartHint func(argv []string) string
	// Disk turns a disk benchmark's JSON output into the report's table;
	// nil, or a nil table, shows none.
	Disk func(raw json.RawMessage) *DiskTable
	// Limiting names what limited the target at a step, from the step's
	// values keyed by stats path (gauges and counters' rates, per-request
	// stats left out), "-" for nothing.
	Limiting func(byPath map[string]float64) string
	// Tuning is what a tuner knows of the target (its readings by role
	// and its knobs); nil: the target cannot be tuned while it runs.
	Tuning *Tuning
	// Each names the Stats that a fleet of the target's replicas shows
	// for each replica beside their sum (package loadtest/fleetwatch);
	// RequestPaths are the counters of the stats JSON whose sum is the
	// requests a replica has answered, shown for each replica too.
	Each         []string
	RequestPaths []string
}

// Watcher returns a watcher of the target as o asks, or nil when o asks
// for neither stats nor profiles. It is the one place a watcher's options
// are completed from its target, for the run and sweep commands, the
// experiment runner's steps and probes, and calibrate: each says what it
// wants in o, and t gives the rest (options).
func (t Target) Watcher(o Options) (loadtest.Watcher, error) {
	if o.StatsURL == "" && o.ProfileURL == "" {
		return nil, nil
	}
	w, err := New(t.options(o))
	if err != nil {
		return nil, err
	}
	return w, nil
}

// options completes o from t: with no Stats, t's; each stat o gives
// without a Panel is shown on the dashboard panel of t's stat at the same
// path or metric (the panels are part of the target's description,
// defined once with its Stats, and a file that names a number its own way
// still measures the same number); with no EnvironmentKeys, t's; with an
// OnRead and no States, t's request states. The caller's lists are left
// as they are.
func (t Target) options(o Options) Options {
	if len(o.EnvironmentKeys) == 0 {
		o.EnvironmentKeys = t.EnvironmentKeys
	}
	if o.OnRead != nil && len(o.States) == 0 {
		o.States = t.States
	}
	if len(o.Stats) == 0 {
		o.Stats = t.Stats
		return o
	}
	panel := map[string]string{}
	for _, s := range t.Stats {
		if s.Panel != "" {
			panel["path "+s.Path] = s.Panel
			panel["metric "+s.Metric] = s.Panel
		}
	}
	stats := make([]Stat, len(o.Stats))
	for i, s := range o.Stats {
		if s.Panel == "" && s.Path != "" {
			s.Panel = panel["path "+s.Path]
		}
		if s.Panel == "" && s.Metric != "" {
			s.Panel = panel["metric "+s.Metric]
		}
		stats[i] = s
	}
	o.Stats = stats
	return o
}

// A DiskTable is what a report shows of a disk benchmark's output: a
// caption, a table and a one-sentence verdict. The target's package fills
// it (Target.Disk) and the experiment report shows it; it is defined here,
// next to Target, because Target.Disk returns it and both the target's
// package and the experiment runner import this one: one type, no
// look-alike with a converter.
type DiskTable struct {
	Caption string
	Head    []string
	Rows    [][]string
	Verdict string
}
