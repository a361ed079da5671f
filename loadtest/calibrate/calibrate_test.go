package calibrate

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// synthetic returns a Measure that answers each probe from read: the
// server's CPU (% of a core) and throughput at a wait, by the probe's
// number (0 the first).
func synthetic(t *testing.T, read func(n int, wait time.Duration) (cpu, tput float64)) (Measure, *int) {
	t.Helper()
	n := 0
	return func(ctx context.Context, wait time.Duration) (*loadtest.Result, error) {
		cpu, tput := read(n, wait)
		n++
		r := &loadtest.Result{Total: loadtest.Stats{Throughput: tput}, Start: time.Unix(int64(n), 0)}
		s := watch.Seen{Server: &watch.ServerStats{Reads: 3, Values: []watch.ServerValue{{Name: "cpu", Kind: "counter", Value: cpu}}}}
		if err := s.Put(r); err != nil {
			t.Fatal(err)
		}
		return r, nil
	}, &n
}

var relativeSpec = Spec{Var: "w", Run: "r", Clients: 10, Reading: []string{"cpu"}, CPU: "cpu", Target: 60, Tolerance: 3,
	Relative: true, Ratio: 7.33, Probes: 6}

// board reads 100 % of a core with no wait and 0.1 ms of CPU per request;
// with a wait w per request and 5 workers, cpu = 100·c/(c+w).
func board(wait time.Duration) (float64, float64) {
	c := 0.0001
	cpu := 100 * c / (c + wait.Seconds())
	return cpu, cpu / 100 / c
}

func TestCapacityFromTwoProbesThatAgree(t *testing.T) {
	// A burst during the first probe with no wait: the board got 55 % of
	// its core. The second reads 100, the third 99: those two agree and
	// make the capacity; the first is dropped.
	measure, n := synthetic(t, func(n int, wait time.Duration) (float64, float64) {
		cpu, tput := board(wait)
		switch n {
		case 0:
			return 55, tput * 0.55
		case 2:
			return 99, tput * 0.99
		}
		return cpu, tput
	})
	cal, err := Run(context.Background(), relativeSpec, measure, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(cal.Capacity-99.5) > 1e-9 {
		t.Errorf("capacity %.2f; want 99.5, the mean of the two probes that agree (100, 99), not the disturbed 55", cal.Capacity)
	}
	if cal.Probes[0].Dropped == "" || cal.Probes[1].Dropped != "" || cal.Probes[2].Dropped != "" {
		t.Errorf("dropped: %q %q %q; want only the first", cal.Probes[0].Dropped, cal.Probes[1].Dropped, cal.Probes[2].Dropped)
	}
	if cal.CapacityNote != "" {
		t.Errorf("capacity note %q; want none: two agreed", cal.CapacityNote)
	}
	if !cal.Reached || *n < 4 {
		t.Errorf("reached %v in %d probes; want the point reached after the three with no wait", cal.Reached, *n)
	}
	for _, p := range cal.Probes[3:] {
		if p.WaitMs == 0 {
			t.Errorf("a probe with no wait after the capacity was set: %+v", p)
		}
	}
	if got := cal.Table(); len(got) != len(cal.Probes) || got[0].Used() == "yes" || got[1].Used() != "yes" {
		t.Errorf("report table: %+v", got)
	}
}

func TestCapacityTwoProbesAgreeAtOnce(t *testing.T) {
	measure, _ := synthetic(t, func(n int, wait time.Duration) (float64, float64) { return board(wait) })
	cal, err := Run(context.Background(), relativeSpec, measure, nil)
	if err != nil {
		t.Fatal(err)
	}
	nowait := 0
	for _, p := range cal.Probes {
		if p.WaitMs == 0 {
			nowait++
		}
	}
	if nowait != 2 || cal.Capacity != 100 || !cal.Reached {
		t.Errorf("%d probes with no wait, capacity %g, reached %v; want 2, 100, true", nowait, cal.Capacity, cal.Reached)
	}
	if got := cal.Probes[len(cal.Probes)-1].Reading; math.Abs(got-60) > 3 {
		t.Errorf("last reading %.1f; want 60 ± 3", got)
	}
}

func TestCapacityProbesNeverAgree(t *testing.T) {
	// 100, 80, 64, 51: no two within 6 %; the closest two (64, 51 are 23 %
	// apart, 100 and 80 are 22 %) are taken and the note says so.
	levels := []float64{100, 80, 64, 51}
	measure, _ := synthetic(t, func(n int, wait time.Duration) (float64, float64) {
		cpu, tput := board(wait)
		if n < len(levels) && wait == 0 {
			return levels[n], tput * levels[n] / 100
		}
		return cpu, tput
	})
	cal, err := Run(context.Background(), relativeSpec, measure, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cal.CapacityNote == "" || !strings.Contains(cal.CapacityNote, "4 probes with no wait did not agree") {
		t.Errorf("capacity note %q; want that the 4 probes did not agree", cal.CapacityNote)
	}
	if cal.Capacity != 90 {
		t.Errorf("capacity %g; want 90, the closest two (100 and 80)", cal.Capacity)
	}
}
func TestNextWait(t *testing.T) {
	// The model the correction assumes: the reading is k·c/(c + q·w).
	model := func(k, c, q, w float64) float64 { return k * c / (c + q*w) }
	for _, tt := range []struct{ k, c, q, w, target float64 }{
		{500, 0.0002, 1, 0.0005, 60},  // too little wait: the reading is high
		{500, 0.0002, 1, 0.004, 60},   // too much
		{90, 0.0003, 30, 0.00001, 40}, // thirty statements a request
	} {
		u := model(tt.k, tt.c, tt.q, tt.w)
		next := nextWait(tt.w, tt.c, tt.q, u, tt.target)
		if got := model(tt.k, tt.c, tt.q, next); math.Abs(got-tt.target) > 1e-9 {
			t.Errorf("nextWait(%g, %g, %g, %g, %g) = %g, which the model reads as %g; want %g", tt.w, tt.c, tt.q, u, tt.target, next, got, tt.target)
		}
	}
	if w := nextWait(0.001, 0.0002, 1, 10, 60); w != 0 {
		t.Errorf("a reading far below the target with little CPU gives wait %g; want 0, never negative", w)
	}
}

func TestSecantWait(t *testing.T) {
	// A reading the model of nextWait gets wrong: besides the wait, each
	// request spends 0.5 ms off the CPU waiting to be scheduled back (a
	// process sharing the core), and the CPU per request is 0.2 ms. The
	// reading is 500·c/(c + extra + w); two probes fix the line.
	read := func(w float64) float64 { return 500 * 0.0002 / (0.0002 + 0.0005 + w) }
	probes := []Probe{{WaitMs: 1.5, Reading: read(0.0015)}, {WaitMs: 0.8, Reading: read(0.0008)}}
	w := secantWait(probes, 60)
	if got := read(w); math.Abs(got-60) > 1e-6 {
		t.Errorf("secantWait = %g s, which reads %g; want 60", w, got)
	}
	if w := secantWait(probes[:1], 60); w != -1 {
		t.Errorf("one probe: %g; want -1 (nothing to fit)", w)
	}
	if w := secantWait([]Probe{{WaitMs: 1, Reading: 50}, {WaitMs: 2, Reading: 60}}, 55); w != -1 {
		t.Errorf("a reading that rises with the wait: %g; want -1", w)
	}
	// Out of reach at any wait: half the smallest wait tried, never below 0.
	if w := secantWait([]Probe{{WaitMs: 1, Reading: 40}, {WaitMs: 2, Reading: 30}}, 90); w != 0.0005 {
		t.Errorf("a target above the line at 0: %g; want 0.0005", w)
	}
}
