package report

import (
	"strings"
	"testing"

	"bbslab/loadtest"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/tune"
	"bbslab/loadtest/watch"
)

// TestTuneMarkdown: the report's tuning section shows every step, the
// winner, the rules and the side-by-side checks the tuning made.
func TestTuneMarkdown(t *testing.T) {
	res := &outcome.Result{Tunes: []*outcome.TuneRun{{Run: "A", Start: "40/40", Result: tuned("capacity")}}}
	md := tuneMarkdown(res)
	for _, s := range []string{"### A from 40/40", "| 2 | 10/10 | 1100 (1050-1150) |", "fewer \\| of both", "Winner: **10/10** (meets p99<10ms", "workers = pool + a few: holds"} {
		if !strings.Contains(md, s) {
			t.Errorf("the report's tuning section lacks %q:\n%s", s, md)
		}
	}
	if strings.Contains(md, "checked before the stop") {
		t.Errorf("the report names a side-by-side check the tuning did not make:\n%s", md)
	}
}

func tuned(outcome string) *tune.Result {
	st := func(n int, k watch.Knobs, lo, hi float64) tune.Step {
		return tune.Step{N: n, Measurement: tune.Measurement{Knobs: k, Throughput: loadtest.Spread{Median: (lo + hi) / 2, Min: lo, Max: hi, N: 3}},
			Diagnosis: tune.Diagnosis{Limit: tune.Capacity, Evidence: "cores 95% busy"}, Decision: "fewer | of both"}
	}
	return &tune.Result{Objectives: []string{"p99<10ms"}, Steps: []tune.Step{st(1, watch.Knobs{Workers: 40, Pool: 40}, 1000, 1100), st(2, watch.Knobs{Workers: 10, Pool: 10}, 1050, 1150)},
		Winner: watch.Knobs{Workers: 10, Pool: 10}, WinnerMet: true, Outcome: outcome, Measurements: 2, Stopped: "stop: capacity",
		Rules: tune.Rules{WorkersPool: "holds: 10 workers = 10 connections + 0", MinMax: "not checked"}}
}
