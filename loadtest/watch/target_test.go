package watch

import (
	"slices"
	"testing"
)

// TestTargetOptions checks the watch options a target gives: its own
// stats and environment at the URL, or a caller's own stats, each taking
// the dashboard panel of the target's stat at the same path unless it
// names one, without changing the caller's list.
func TestTargetOptions(t *testing.T) {
	tg := Target{
		Stats:           []Stat{{Name: "workers_queued", Path: "workers.queued_seconds_total", Kind: Counter, Panel: "Workers"}},
		EnvironmentKeys: []string{"host"},
	}
	o := tg.Options("http://x/stats")
	if o.StatsURL != "http://x/stats" || len(o.Stats) != 1 || o.Stats[0].Name != "workers_queued" || !slices.Equal(o.EnvironmentKeys, []string{"host"}) {
		t.Errorf("Options(url) = %+v; want the target's stats and environment at url", o)
	}
	file := []Stat{
		{Name: "queued", Path: "workers.queued_seconds_total", Kind: Counter},
		{Name: "own", Path: "x.y", Kind: Gauge, Panel: "Mine"},
		{Name: "wait", Path: "workers.wait_seconds_total", Kind: Counter, PerRequest: true},
	}
	got := tg.Options("http://x/stats", file...).Stats
	if len(got) != 3 || got[0].Panel != "Workers" || got[1].Panel != "Mine" || got[2].Panel != "" || file[0].Panel != "" {
		t.Errorf("Options(url, file...) stats = %+v (file now %+v); want Workers for the queue, Mine kept, none for the wait, the file's unchanged", got, file)
	}
}
