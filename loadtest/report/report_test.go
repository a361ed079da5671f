package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bbslab/loadtest"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// measuredPoint is a point measured once per throughput given, with the
// server reading "server CPU" at cpu[i] when given.
func measuredPoint(clients int, thr []float64, mean []float64, cpu []float64) *outcome.Point {
	p := &outcome.Point{Clients: clients}
	for i, t := range thr {
		r := &loadtest.Result{Total: loadtest.Stats{Clients: clients, Throughput: t}, Labels: []loadtest.Stats{{Label: "AllView", Throughput: t}}}
		if mean != nil {
			r.Total.MeanMs = mean[i]
		}
		var server *watch.ServerStats
		if cpu != nil {
			server = &watch.ServerStats{Values: []watch.ServerValue{{Name: "server CPU", Value: cpu[i]}}}
		}
		p.Repeats = append(p.Repeats, outcome.NewRepeat(i+1, r, server))
		p.Refresh()
	}
	return p
}

// committedResult reads a committed report's experiment.json.
func committedResult(name string) (*outcome.Result, error) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "reports", name, "experiment.json"))
	if err != nil {
		return nil, err
	}
	var res outcome.Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// TestCommittedResultsStillRead reads every committed result: a result
// written before re-measures reads as every repeat used and lists no
// re-measured point; one with re-measures lists them.
func TestCommittedResultsStillRead(t *testing.T) {
	files, _ := filepath.Glob("../../docs/reports/*/experiment.json")
	if len(files) == 0 {
		t.Fatal("no committed experiment.json under docs/reports")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var res outcome.Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if res.Disturbance == nil || res.Disturbance.Remeasured == 0 {
			for _, r := range res.Runs {
				for _, p := range r.Points {
					if len(p.Used()) != max(len(p.Repeats), 1) || !p.Measured() || len(p.Slots()) != len(p.Used()) {
						t.Errorf("%s: %s at %d clients: %d of %d repeats used", f, r.Name, p.Clients, len(p.Used()), len(p.Repeats))
					}
				}
			}
			if ps := remeasured(&res); len(ps) != 0 || RemeasuredText(&res) != "" {
				t.Errorf("%s: %d re-measured points in a result written before re-measures", f, len(ps))
			}
		} else if ps := remeasured(&res); len(ps) == 0 {
			t.Errorf("%s: %d re-measures and no re-measured point listed", f, res.Disturbance.Remeasured)
		}
	}
}

// TestRecalibratedNotRemeasured: a measurement left out because the
// calibration was redone since is not a re-measured point.
func TestRecalibratedNotRemeasured(t *testing.T) {
	left := &outcome.Result{Runs: []*outcome.Run{{Name: "all", Points: []*outcome.Point{{Clients: 10, Repeats: []*outcome.Repeat{
		{Repeat: 1, Attempt: 1, Dropped: true, Recalibrated: true}, {Repeat: 2, Attempt: 1, Calibration: 1}, {Repeat: 3, Attempt: 1, Calibration: 1}}}}}}}
	if pts := remeasured(left); len(pts) != 0 {
		t.Errorf("re-measured points %+v; a measurement left out for the recalibration is not one", pts)
	}
}

// TestControlMarkdown: the report's control lines give the control's
// outcome and its checks with their figures, or say that there is none.
func TestControlMarkdown(t *testing.T) {
	c := outcome.Claim{Control: &outcome.Control{Why: "w", Outcome: live.NotReproduced,
		Checks: []outcome.Check{{Text: "more at 10 clients throughput 1600/s <= few at 10 clients throughput 1000/s: not reproduced"}}}}
	md := controlMarkdown(c)
	if !strings.Contains(md, "control (w): **not reproduced**") || !strings.Contains(md, "more at 10 clients throughput 1600/s") {
		t.Errorf("the report's control lines:\n%s\nwant the control's outcome and its figures", md)
	}
	if md := controlMarkdown(outcome.Claim{}); !strings.Contains(md, "no control") {
		t.Errorf("a claim without a control: %q; want it to say so", md)
	}
}
