package fleetwatch

import (
	"encoding/json"
	"reflect"
	"testing"

	"bbslab/loadtest/watch"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCombine adds up two documents: numbers and bools by path, means
// where asked, a path one lacks, arrays by index, strings from the first.
func TestCombine(t *testing.T) {
	a := decode(t, `{"workers":{"busy":2,"busy_seconds_total":10.5},"machine":{"cpu":{"idle":40}},"ready":true,"db":"postgres","per_cpu":[1,2],"only_a":3}`)
	b := decode(t, `{"workers":{"busy":1,"busy_seconds_total":4.5},"machine":{"cpu":{"idle":60}},"ready":false,"db":"x","per_cpu":[10,20,30]}`)
	got := Combine([]any{a, b}, map[string]bool{"machine.cpu.idle": true})
	want := decode(t, `{"workers":{"busy":3,"busy_seconds_total":15},"machine":{"cpu":{"idle":50}},"ready":1,"db":"postgres","per_cpu":[11,22,30],"only_a":3}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Combine =\n%v\nwant\n%v", got, want)
	}
	if got := Combine(nil, nil); got != nil {
		t.Errorf("Combine(nothing) = %v; want nil", got)
	}
}

// TestMeanPaths checks which stats the sum averages: a share in % is,
// a process's % of a core is not.
func TestMeanPaths(t *testing.T) {
	m := meanPaths(watch.Target{Stats: []watch.Stat{
		{Name: "idle", Path: "machine.cpu.idle", Unit: "%"},
		{Name: "cpu", Path: "machine.process_cpu.total", Unit: "% of a core"},
		{Name: "m", Metric: "x", Unit: "%"},
	}})
	if !reflect.DeepEqual(m, map[string]bool{"machine.cpu.idle": true}) {
		t.Errorf("meanPaths = %v; want machine.cpu.idle alone", m)
	}
}
