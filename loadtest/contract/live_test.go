package contract_test

import (
	"io"
	"net/http"
	"slices"
	"testing"

	"bbslab/loadtest/contract"
	"bbslab/loadtest/live"
	"bbslab/loadtest/watch"
)

// TestDoingExistsInStats checks the "doing" states against the real
// board: each path is a number in /admin/stats, the watcher accepts the
// list, and under a few requests the time in SQL and the busy time grow.
func TestDoingExistsInStats(t *testing.T) {
	b := newBoard(t, nil)
	before := b.stats(t)
	for range 5 {
		resp, err := http.Get(b.pub.URL + "/bbs?cmd=EachGetView&n=10")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	after := b.stats(t)
	for _, st := range contract.Board.States {
		v0, ok0 := lookup(before, st.Path)
		v1, ok1 := lookup(after, st.Path)
		f0, num0 := v0.(float64)
		f1, num1 := v1.(float64)
		if !ok0 || !ok1 || !num0 || !num1 {
			t.Errorf("state %q: path %q = %v, %v in /admin/stats; want numbers", st.Name, st.Path, v0, v1)
			continue
		}
		if f1 < f0 {
			t.Errorf("state %q (%s) went down from %v to %v", st.Name, st.Path, f0, f1)
		}
		if (st.Path == "db_pool.sql_seconds_total" || st.Path == "workers.busy_seconds_total") && f1 <= f0 {
			t.Errorf("state %q (%s) stayed at %v over 5 requests; want it to grow", st.Name, st.Path, f0)
		}
	}
	if _, err := watch.New(watch.Options{StatsURL: "http://127.0.0.1:1/admin/stats", Stats: contract.Board.Stats, States: contract.Board.States}); err != nil {
		t.Errorf("watch.New(contract.Board.States) = %v", err)
	}
}

// TestStatsPanels checks that each stat's Panel is one of the
// dashboard's panels and that each panel draws a stat.
func TestStatsPanels(t *testing.T) {
	panels := map[string]int{contract.PanelCPU: 0, contract.PanelWorkers: 0, contract.PanelPool: 0, contract.PanelWaits: 0, contract.PanelGC: 0}
	for _, r := range contract.Board.Stats {
		if r.Panel == "" {
			continue
		}
		if _, ok := panels[r.Panel]; !ok {
			t.Errorf("stat %s: panel %q is not one of the dashboard's", r.Name, r.Panel)
		}
		panels[r.Panel]++
	}
	for p, n := range panels {
		if n == 0 {
			t.Errorf("panel %q draws no stat", p)
		}
	}
}

// TestPanelsInJapanese checks that the dashboard's catalogue has the
// Japanese of each of the board's panels and request states, which the page
// shows as headings and the legend of "what requests are doing now".
func TestPanelsInJapanese(t *testing.T) {
	names := []string{contract.PanelCPU, contract.PanelWorkers, contract.PanelPool, contract.PanelWaits, contract.PanelGC}
	for _, st := range contract.Board.States {
		names = append(names, st.Name)
	}
	for _, n := range names {
		if live.Say("ja", n) == n {
			t.Errorf("%q: the dashboard's catalogue (loadtest/live/lang.go) has no Japanese for it", n)
		}
	}
}

// TestLimiting checks Limiting by the stats paths, and that
// each path is one of the Stats' (so that a run's values carry them).
func TestLimiting(t *testing.T) {
	for _, path := range []string{"machine.own_cpus.busy", "workers.queued_seconds_total", "db_pool.acquire_waiting_seconds_total"} {
		if !slices.ContainsFunc(contract.Board.Stats, func(r watch.Stat) bool { return r.Path == path && !r.PerRequest }) {
			t.Errorf("Limiting reads %s, which no stat takes as a rate or gauge", path)
		}
	}
	for _, tt := range []struct {
		server map[string]float64
		want   string
	}{
		{nil, "-"},
		{map[string]float64{"machine.own_cpus.busy": 89.9, "workers.queued_seconds_total": 0.005, "db_pool.acquire_waiting_seconds_total": 0}, "-"},
		{map[string]float64{"machine.own_cpus.busy": 97}, "cores 97% busy"},
		{map[string]float64{"workers.queued_seconds_total": 4.24}, "workers full, 4.2 queued"},
		{map[string]float64{"db_pool.acquire_waiting_seconds_total": 2}, "pool empty, 2.0 waiting"},
		{map[string]float64{"machine.own_cpus.busy": 99, "workers.queued_seconds_total": 1, "db_pool.acquire_waiting_seconds_total": 3}, "cores 99% busy, workers full, 1.0 queued, pool empty, 3.0 waiting"},
	} {
		if got := contract.Board.Limiting(tt.server); got != tt.want {
			t.Errorf("Limiting(%v) = %q; want %q", tt.server, got, tt.want)
		}
	}
}

// TestInterferenceStats checks the board's Interference and Steal (what a
// runner reads at every step to tell a disturbed span): named, counters
// of machine.own_cpus in % of one core in both forms, and among the
// Stats as they are, so that the watcher reads them in every run and the
// dashboard draws them on the CPU panel.
func TestInterferenceStats(t *testing.T) {
	for _, st := range []watch.Stat{contract.Board.Interference, contract.Board.Steal} {
		if st.Name == "" || st.Kind != watch.Counter || st.Scale != 100 || st.MetricScale != 100 || st.Unit != "% of a core" || st.Panel != contract.PanelCPU {
			t.Errorf("%+v; want a named counter x 100 in %% of a core on the CPU panel", st)
		}
		if err := st.Check(); err != nil {
			t.Error(err)
		}
		if !slices.Contains(contract.Board.Stats, st) {
			t.Errorf("stat %s is not among Board.Stats", st.Name)
		}
	}
}
