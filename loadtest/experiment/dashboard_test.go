package experiment

import (
	"reflect"
	"testing"

	"bbslab/loadtest/claim"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// TestByPath checks that a step's values are keyed by path for the
// target's Limiting, per-request stats left out.
func TestByPath(t *testing.T) {
	file := []watch.Stat{
		{Name: "queued", Path: "workers.queued_seconds_total", Kind: watch.Counter},
		{Name: "own", Path: "x.y", Kind: watch.Gauge, Panel: "Mine"},
		{Name: "wait", Path: "workers.wait_seconds_total", Kind: watch.Counter, PerRequest: true},
	}
	want := map[string]float64{"workers.queued_seconds_total": 2, "x.y": 5}
	if bp := byPath(map[string]float64{"queued": 2, "own": 5, "wait": 9}, file); !reflect.DeepEqual(bp, want) {
		t.Errorf("byPath = %v; want %v (per-request stats left out)", bp, want)
	}
}

// TestPendingClaims: during an experiment a claim that reads a run's peak
// or last point waits until that run has measured every client count; one
// that reads a fixed client count does not.
func TestPendingClaims(t *testing.T) {
	claims := []claim.Claim{
		{ID: "peak", Checks: []claim.Check{{Left: claim.Operand{Run: "a", At: "peak", Metric: "throughput"}, Op: ">", Right: claim.Operand{Run: "b", At: "peak", Metric: "throughput"}}}},
		{ID: "fixed", Checks: []claim.Check{{Left: claim.Operand{Run: "a", Clients: 5, Metric: "throughput"}, Op: ">", Right: claim.Operand{Value: new(1.0)}}}},
		{ID: "last", Checks: []claim.Check{{Left: claim.Operand{Run: "a", At: "last", Metric: "p99_ms"}, Op: "<", Right: claim.Operand{Value: new(10.0)}}}},
	}
	res := &outcome.Result{Runs: []*outcome.Run{
		{Name: "a", Points: []*outcome.Point{{Clients: 5}, {Clients: 10}}},
		{Name: "b", Points: []*outcome.Point{{Clients: 5}}},
	}}
	got := pendingClaims(claims, res, []int{5, 10})
	if !got["peak"] || got["fixed"] || got["last"] {
		t.Errorf("pendingClaims with run b at 1 of 2 counts = %v; want peak only", got)
	}
	res.Runs[1].Points = append(res.Runs[1].Points, &outcome.Point{Clients: 10})
	if got := pendingClaims(claims, res, []int{5, 10}); len(got) != 0 {
		t.Errorf("pendingClaims with every run complete = %v; want none", got)
	}
	cs := []outcome.Claim{{Claim: live.Claim{ID: "peak", Outcome: live.Reproduced}}, {Claim: live.Claim{ID: "fixed", Outcome: live.Reproduced}}}
	if l := liveClaims(cs, false, map[string]bool{"peak": true}); len(l) != 1 || l[0].ID != "fixed" {
		t.Errorf("liveClaims during the run = %+v; want only the fixed claim", l)
	}
	if l := liveClaims(cs, true, map[string]bool{"peak": true}); len(l) != 2 {
		t.Errorf("liveClaims at the end = %+v; want both", l)
	}
}
