package watch

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"bbslab/loadtest"
)

// A Target describes a server under test to the tools (e.g. contract.Board).
type Target struct {
	// StatsPath is on the admin listener; MetricPrefix begins its metrics' names.
	StatsPath    string
	MetricPrefix string
	// Stats are watched in each run and drawn on Charts.
	Stats  []Stat
	Charts []Chart
	// EnvironmentKeys names the stats JSON's objects copied to each result.
	EnvironmentKeys []string
	// States are the request states the live dashboard stacks.
	States []State
	// ProcessCPU is the target's own CPU in % of one core.
	ProcessCPU Stat
	// Interference is the CPU time of the target's cores that it did not
	// use, in % of one core, and Steal the hypervisor's part; no Name: none.
	Interference, Steal Stat
	// Validate checks the target at url before any load; nil: none.
	Validate func(ctx context.Context, url string) error
	// StartHint hints at what to start first for a server that did not come up.
	StartHint func(argv []string) string
	// Disk turns a disk benchmark's JSON output into the report's table.
	Disk func(raw json.RawMessage) *DiskTable
	// Limiting names what limited a step from its values by path, "-" none.
	Limiting func(byPath map[string]float64) string
	// Tuning is what a tuner knows of the target; nil: it cannot be tuned.
	Tuning *Tuning
	// Each names the Stats a fleet shows per replica (loadtest/fleetwatch);
	// RequestPaths sum to the requests a replica has answered.
	Each         []string
	RequestPaths []string
}

// Watcher returns a watcher as o asks, completed from t, or nil for none.
func (t Target) Watcher(o Options) (loadtest.Watcher, error) {
	if o.StatsURL == "" && o.ProfileURL == "" {
		return nil, nil
	}
	w, err := New(t.options(o))
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return w, nil
}

// options completes o from t, each stat's Panel from t's at its path or metric.
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
	delete(panel, "path ") // a stat without a path (or a metric) takes no panel by it
	delete(panel, "metric ")
	o.Stats = slices.Clone(o.Stats)
	for i, s := range o.Stats {
		o.Stats[i].Panel = cmp.Or(s.Panel, panel["path "+s.Path], panel["metric "+s.Metric])
	}
	return o
}

// A DiskTable is what a report shows of a disk benchmark's output.
type DiskTable struct {
	Caption string
	Head    []string
	Rows    [][]string
	Verdict string
}
