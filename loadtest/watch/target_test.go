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
	o := tg.options(Options{StatsURL: "http://x/stats"})
	if o.StatsURL != "http://x/stats" || len(o.Stats) != 1 || o.Stats[0].Name != "workers_queued" || !slices.Equal(o.EnvironmentKeys, []string{"host"}) {
		t.Errorf("options(url) = %+v; want the target's stats and environment at url", o)
	}
	file := []Stat{
		{Name: "queued", Path: "workers.queued_seconds_total", Kind: Counter},
		{Name: "own", Path: "x.y", Kind: Gauge, Panel: "Mine"},
		{Name: "wait", Path: "workers.wait_seconds_total", Kind: Counter, PerRequest: true},
	}
	got := tg.options(Options{StatsURL: "http://x/stats", Stats: file}).Stats
	if len(got) != 3 || got[0].Panel != "Workers" || got[1].Panel != "Mine" || got[2].Panel != "" || file[0].Panel != "" {
		t.Errorf("options(url, file) stats = %+v (file now %+v); want Workers for the queue, Mine kept, none for the wait, the file's unchanged", got, file)
	}
}

// TestTargetWatcher checks what a target adds to what a caller asks: no
// watcher when it asks for nothing; its request states for a caller that
// is told of each read; its environment keys unless the caller names its
// own.
func TestTargetWatcher(t *testing.T) {
	tg := Target{Stats: []Stat{{Name: "busy", Path: "busy", Kind: Gauge}}, EnvironmentKeys: []string{"host"},
		States: []State{{Name: "busy", Path: "busy"}}}
	if w, err := tg.Watcher(Options{Format: JSON}); w != nil || err != nil {
		t.Errorf("Watcher(no URL) = %v, %v; want nil, nil", w, err)
	}
	if w, err := tg.Watcher(Options{StatsURL: "http://x/stats", Format: "yaml"}); w != nil || err == nil {
		t.Errorf("Watcher(format yaml) = %v, %v; want an error", w, err)
	}
	o := tg.options(Options{StatsURL: "http://x/stats", OnRead: func(Read) {}, EnvironmentKeys: []string{"own"}})
	if len(o.States) != 1 || !slices.Equal(o.EnvironmentKeys, []string{"own"}) {
		t.Errorf("options(OnRead, own keys) = states %v, keys %v; want the target's state, the caller's keys", o.States, o.EnvironmentKeys)
	}
	if o := tg.options(Options{StatsURL: "http://x/stats"}); len(o.States) != 0 {
		t.Errorf("options(no OnRead) states = %v; want none", o.States)
	}
}
