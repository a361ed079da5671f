package experiment

import (
	"reflect"
	"testing"

	"bbslab/loadtest/watch"
)

// TestWithPanelsAndByPath checks that a file's own readings take the
// dashboard panels of the known readings by path, without changing the
// file's, and that a step's values are keyed by path for Limiting.
func TestWithPanelsAndByPath(t *testing.T) {
	known := []watch.Reading{{Name: "workers_queued", Path: "workers.queued_seconds_total", Panel: "Workers"}}
	file := []watch.Reading{
		{Name: "queued", Path: "workers.queued_seconds_total", Kind: watch.Counter},
		{Name: "own", Path: "x.y", Kind: watch.Gauge, Panel: "Mine"},
		{Name: "wait", Path: "workers.wait_seconds_total", Kind: watch.Counter, PerRequest: true},
	}
	got := withPanels(file, known)
	if got[0].Panel != "Workers" || got[1].Panel != "Mine" || got[2].Panel != "" || file[0].Panel != "" {
		t.Errorf("withPanels = %+v (file now %+v); want Workers for the queue, Mine kept, none for the wait, the file's unchanged", got, file)
	}
	want := map[string]float64{"workers.queued_seconds_total": 2, "x.y": 5}
	if bp := byPath(map[string]float64{"queued": 2, "own": 5, "wait": 9}, file); !reflect.DeepEqual(bp, want) {
		t.Errorf("byPath = %v; want %v (per-request readings left out)", bp, want)
	}
}
