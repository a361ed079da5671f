package watch

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/loadtest"
)

// testStates are request states of the fake target: one request busy and
// two queued all the time.
var testStates = []State{
	{Name: "busy", Path: "workers.busy_seconds_total"},
	{Name: "queued", Path: "workers.queued_seconds_total"},
	{Name: "queued beyond busy", Path: "workers.queued_seconds_total", Minus: []string{"busy"}},
	{Name: "busy beyond queued", Path: "workers.busy_seconds_total", Minus: []string{"queued"}},
}

// TestOnReadDuringTheRun checks the live reads: they start before the
// measured window (warm-up included), come about once a second, carry the
// states' shares (counters' increase per second, Minus taken off and
// clamped at 0) and the stats' values, while the window's stats still
// cover the window alone.
func TestOnReadDuringTheRun(t *testing.T) {
	srv, _ := fakeStatsTarget(t)
	var mu sync.Mutex
	var reads []Read
	start := time.Now()
	w := mustWatcher(t, Options{StatsURL: srv.URL + "/admin/stats", Stats: testStats, States: testStates,
		OnRead: func(r Read) {
			mu.Lock()
			reads = append(reads, r)
			mu.Unlock()
		}})
	res := mustRun(t, loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL}}, Clients: 2, Think: 10 * time.Millisecond,
		Warmup: 1500 * time.Millisecond, Duration: 2 * time.Second, Watcher: w})
	mu.Lock()
	defer mu.Unlock()
	if len(reads) < 2 {
		t.Fatalf("%d live reads in a 3.5 s run; want about one a second", len(reads))
	}
	if first := reads[0].At.Sub(start); first > 1500*time.Millisecond {
		t.Errorf("first live read %v after the start; want it in the 1.5 s warm-up", first)
	}
	// The fake's counters grow with its own clock and the watcher divides
	// by its own (the time each poll was sent): a poll delayed on its way
	// (a CI machine whose hypervisor took 80 % of its CPU did this, 2026-12)
	// scales every rate of that read alike. So the busy rate is checked
	// loosely against 1/s, and the others exactly against it: queued is
	// twice busy, "queued beyond busy" is busy, "busy beyond queued" is 0.
	want := map[string]float64{"busy": 1, "queued": 2, "queued beyond busy": 1, "busy beyond queued": 0}
	for i, r := range reads {
		if len(r.States) != len(testStates) {
			t.Fatalf("read %d: states %+v; want %d", i, r.States, len(testStates))
		}
		busy := r.States[0].Value
		if r.States[0].Name != "busy" || math.Abs(busy-1) > 0.2 {
			t.Fatalf("read %d: states %+v; want busy first, at 1/s within 0.2", i, r.States)
		}
		for j, s := range r.States {
			if s.Name != testStates[j].Name || math.Abs(s.Value-want[s.Name]*busy) > 0.001 {
				t.Errorf("read %d: state %q = %.4f; want %s = %v × busy (%.4f)", i, s.Name, s.Value, testStates[j].Name, want[testStates[j].Name], busy)
			}
		}
		got := map[string]float64{}
		for _, v := range r.Values(100) {
			got[v.Label] = v.Value
		}
		if got["server_cpu"] != 50 || math.Abs(got["workers_queued"]-2*got["workers_busy"]) > 0.001 {
			t.Errorf("read %d: values %v; want server_cpu 50 and workers_queued twice workers_busy", i, got)
		}
		if _, ok := got["pool_wait"]; ok {
			t.Errorf("read %d: pool_wait %v; the target has no such counter", i, got["pool_wait"])
		}
	}
	sr := seen(t, res).Server
	if v, ok := sr.Value("server_cpu"); !ok || v != 50 {
		t.Errorf("window's server_cpu %v (%v); want 50", v, ok)
	}
	if n := sr.Reads; n < 1 || n > 4 {
		t.Errorf("window's stats from %d reads; want those of the 2 s window alone", n)
	}
}

// TestReadValues checks the per-second values of one span by hand.
func TestReadValues(t *testing.T) {
	stats := []Stat{
		{Name: "cpu", Path: "cpu", Kind: Gauge, Scale: 1},
		{Name: "idle", Path: "idle", Kind: Gauge, Scale: 1, Complement: true, Legend: "machine busy"},
		{Name: "gc", Path: "gc", Kind: Counter, Scale: 1},
		{Name: "wait", Path: "wait", Kind: Counter, PerRequest: true, Scale: 1000},
		{Name: "gone", Path: "gone", Kind: Counter, Scale: 1},
	}
	t0 := time.Unix(100, 0)
	prev := map[string]float64{"cpu": 10, "idle": 70, "gc": 4, "wait": 1.0, "gone": 3}
	cur := map[string]float64{"cpu": 30, "idle": 60, "gc": 10, "wait": 1.5}
	r := makeRead(stats, nil, byName(stats, prev), byName(stats, cur), nil, nil, t0, t0.Add(2*time.Second))
	var got []string
	for _, v := range r.Values(50) {
		got = append(got, fmt.Sprintf("%s=%g", v.Label, math.Round(v.Value*1000)/1000))
	}
	// gc: 6 in 2 s; wait: 0.5 s in 2 s = 0.25 s/s over 50 req/s = 5 ms.
	if want := "cpu=30 machine busy=40 gc=3 wait=5"; strings.Join(got, " ") != want {
		t.Errorf("Values(50) = %q; want %q", strings.Join(got, " "), want)
	}
	if n := len(r.Values(0)); n != 3 {
		t.Errorf("Values(0) has %d values; want 3 (no per-request value without requests)", n)
	}
	// "gone" is missing from the later poll: absent, not 0.
	if a := r.Absent(); len(a) != 1 || a[0].Name != "gone" {
		t.Errorf("Absent() = %+v; want the stat gone from the later poll", a)
	}
}

// TestReadAbsent checks that a path missing from a poll makes its stat
// absent, an Optional one aside (the target leaves it out when it has
// nothing to count). The window's stats leave such a stat out and name
// it in the warnings (TestServerStatsAndProfiles).
func TestReadAbsent(t *testing.T) {
	stats := []Stat{
		{Name: "busy", Path: "machine.cpu.idle", Kind: Gauge, Scale: 1, Complement: true},
		{Name: "iowait", Path: "machine.cpu.iowait", Kind: Gauge, Scale: 1},
		{Name: "tw", Path: "states.TIME_WAIT", Kind: Gauge, Scale: 1, Optional: true},
	}
	t0 := time.Unix(100, 0)
	cur := map[string]float64{"machine.cpu.idle": 60}
	r := makeRead(stats, nil, byName(stats, cur), byName(stats, cur), nil, nil, t0, t0.Add(time.Second))
	if a := r.Absent(); len(a) != 1 || a[0].Name != "iowait" {
		t.Errorf("Absent() = %+v; want iowait alone", a)
	}
	if v := r.Values(10); len(v) != 1 || v[0].Value != 40 {
		t.Errorf("Values = %+v; want busy 40 alone", v)
	}
}

// byName returns the samples of stats a JSON read with these numbers by
// path would give.
func byName(stats []Stat, byPath map[string]float64) map[string]sample {
	out := map[string]sample{}
	for _, st := range stats {
		if v, ok := byPath[st.Path]; ok {
			out[st.Name] = sample{kind: st.Kind, v: v, per: 1}
		}
	}
	return out
}
