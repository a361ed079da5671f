package tune

import (
	"context"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest/watch"
)

func TestGridAndShuffle(t *testing.T) {
	g := Grid(Spec{MaxWorkers: 4, MaxPool: 3})
	if len(g) != 12 || g[0] != kn(1, 1) || g[11] != kn(4, 3) {
		t.Fatalf("Grid(workers 1..4, pool 1..3) = %v; want the 12 settings, workers major", g)
	}
	a, b := shuffled(g, 7), shuffled(g, 7)
	seen := map[watch.Knobs]bool{}
	same := true
	for i := range a {
		seen[a[i]] = true
		same = same && a[i] == g[i]
		if a[i] != b[i] {
			t.Fatalf("shuffled with one seed gave two orders")
		}
	}
	if len(seen) != len(g) || same {
		t.Errorf("shuffled = %v; want every setting once, in another order", a)
	}
}

// TestRunGrid holds a short tuning of the fake against its 3 × 3 grid:
// every grid setting is measured once, interleaved with the tuner's
// steps, and the figures printed are the grid's and the tuner's own.
func TestRunGrid(t *testing.T) {
	f := newFakeBoard(kn(1, 1), 1, 2*time.Millisecond, 500*time.Microsecond)
	url, target := f.start(t)
	spec := fakeSpec(url, kn(1, 1), 3, "p99<500ms")
	spec.MaxWorkers, spec.MaxPool, spec.Repeats = 3, 3, 1
	spec.Load.Duration = 400 * time.Millisecond
	var lines []string
	g, err := RunGrid(context.Background(), spec, target, Options{Logf: func(format string, a ...any) {
		lines = append(lines, strings.SplitN(format, ":", 2)[0])
	}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if g.GridMeasurements != 9 || len(g.Grid) != 9 || g.TunerMeasurements != len(g.Tune.Steps) {
		t.Fatalf("grid %d (%d), tuner %d for %d steps; want 9 and one per step", g.GridMeasurements, len(g.Grid), g.TunerMeasurements, len(g.Tune.Steps))
	}
	seen := map[watch.Knobs]bool{}
	for _, m := range g.Grid {
		seen[m.Knobs] = true
	}
	if len(seen) != 9 || !seen[g.Best.Knobs] {
		t.Errorf("grid settings %v, best %s; want all 9 once and the best among them", seen, short(g.Best.Knobs))
	}
	if got := pick(g.Grid, MostThroughput, spec.Objectives); got != g.Best {
		t.Errorf("best %s; the tuner's rule picks %s", short(g.Best.Knobs), short(got.Knobs))
	}
	if !(g.Ratio.Min <= g.Ratio.Median && g.Ratio.Median <= g.Ratio.Max) || g.Ratio.Median <= 0 {
		t.Errorf("ratio %+v; want min <= median <= max, positive", g.Ratio)
	}
	// Interleaved: a grid line between the tuner's first and last steps.
	first, last, between := -1, -1, false
	for i, l := range lines {
		if strings.HasPrefix(l, "step") {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for _, l := range lines[first+1 : max(last, first+1)] {
		between = between || strings.HasPrefix(l, "grid")
	}
	if len(g.Tune.Steps) > 1 && !between {
		t.Errorf("no grid measurement between the tuner's steps: %v", lines)
	}
}
