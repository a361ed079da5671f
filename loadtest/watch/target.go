package watch

import (
	"context"
	"encoding/json"
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
}

// Options returns the options of a watcher of the target's stats at
// statsURL (JSON or Prometheus text, as the caller's Options.Format says),
// keeping t.Stats and copying t.EnvironmentKeys: the one place the
// tools build them (the run and sweep commands, calibrate and the
// experiment runner add their profiles and live feed to what it returns).
//
// A caller with its own list of stats (an experiment file's
// [[stats.reading]], calibrate's ProcessCPU) passes it as stats. Each of
// them without a Panel is shown on the dashboard panel of t's stat at the
// same path or metric: the panels are part of the target's description, defined
// once with its Stats, and a file that names a number its own way still
// measures the same number.
func (t Target) Options(statsURL string, stats ...Stat) Options {
	o := Options{StatsURL: statsURL, Stats: t.Stats, EnvironmentKeys: t.EnvironmentKeys}
	if len(stats) == 0 {
		return o
	}
	panel := map[string]string{}
	for _, s := range t.Stats {
		if s.Panel != "" {
			panel["path "+s.Path] = s.Panel
			panel["metric "+s.Metric] = s.Panel
		}
	}
	o.Stats = make([]Stat, len(stats))
	for i, s := range stats {
		if s.Panel == "" && s.Path != "" {
			s.Panel = panel["path "+s.Path]
		}
		if s.Panel == "" && s.Metric != "" {
			s.Panel = panel["metric "+s.Metric]
		}
		o.Stats[i] = s
	}
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
