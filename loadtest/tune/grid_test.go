package tune

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest/measure"
	"bbslab/loadtest/watch"
)

func TestGridAndShuffle(t *testing.T) {
	ks, err := newKnobSet(Spec{MaxWorkers: 4, MaxPool: 3})
	if err != nil {
		t.Fatal(err)
	}
	g := ks.grid()
	if len(g) != 12 || g[0] != kn(1, 1) || g[11] != kn(4, 3) {
		t.Fatalf("the grid of workers 1..4, pool 1..3 = %v; want the 12 settings, workers major", g)
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

// TestRunGrid holds two short tunings of the model, from 1/1 and 3/3,
// against its 3 × 3 grid: every grid setting is measured once,
// interleaved with the tuner's steps, and the figures printed are the
// grid's and each tuning's own.
func TestRunGrid(t *testing.T) {
	f := newModel(kn(1, 1), 1, 2*time.Millisecond, 500*time.Microsecond)
	target := fakeTarget()
	spec := f.spec(kn(1, 1), 3, "p99<500ms")
	spec.MaxWorkers, spec.MaxPool, spec.Repeats = 3, 3, 1
	spec.Load.Duration = 400 * time.Millisecond
	var lines []string
	g, err := RunGrid(context.Background(), spec, []watch.Knobs{kn(1, 1), kn(3, 3)}, target, f.opt(Options{Logf: func(format string, a ...any) {
		lines = append(lines, strings.SplitN(format, ":", 2)[0])
	}}), GridSpec{Seed: 3, Rounds: 2, Within: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	if g.GridMeasurements != 9 || len(g.Grid) != 9 || len(g.Disturbed) != 0 || len(g.Tunes) != 2 {
		t.Fatalf("grid %d (%d, %d disturbed), %d tunings; want 9, none disturbed, 2 tunings", g.GridMeasurements, len(g.Grid), len(g.Disturbed), len(g.Tunes))
	}
	for i, start := range []watch.Knobs{kn(1, 1), kn(3, 3)} {
		gt := g.Tunes[i]
		want := 2*len(gt.Tune.Steps) - 1
		if gt.Tune.Start != start || gt.TunerMeasurements != want {
			t.Errorf("tuning %d from %s, %d measurements for %d steps; want from %s, one for the first step, two for each later (the best beside it)", i, short(gt.Tune.Start), gt.TunerMeasurements, len(gt.Tune.Steps), short(start))
		}
		if !(gt.Ratio.Min <= gt.Ratio.Median && gt.Ratio.Median <= gt.Ratio.Max) || gt.Ratio.Median <= 0 {
			t.Errorf("tuning from %s: ratio %+v; want min <= median <= max, positive", short(start), gt.Ratio)
		}
		if gt.Winner == nil || gt.Winner.Knobs != gt.Tune.Winner || gt.RatioInGrid == nil {
			t.Errorf("tuning from %s: the winner %s as the grid measured it: %v", short(start), short(gt.Tune.Winner), gt.Winner)
		}
		if gt.SideRatio == nil || gt.SideRatio.Median <= 0 {
			t.Errorf("tuning from %s: side by side ratio %v; want one", short(start), gt.SideRatio)
		}
		// Round by round: 2 rounds, each the winner's throughput over the
		// best's in that round (the best's own ratio is 1 each round),
		// decided against the threshold given.
		switch v, p := gt.Verdict, gt.Verdict.Ratio; {
		case !v.Decided || len(v.Rounds) != 2 || p.N != 2 || p.Min <= 0 || p.Min > p.Median || p.Median > p.Max || v.Threshold != 0.95:
			t.Errorf("tuning from %s: verdict %+v; want decided on 2 rounds, positive, min <= median <= max, threshold 0.95", short(start), v)
		case v.Within != (p.Median >= 0.95):
			t.Errorf("tuning from %s: verdict %s; want within exactly when the median reaches 0.95", short(start), v)
		case gt.Tune.Winner == g.Best.Knobs && (p.Min != 1 || p.Max != 1 || !v.Within):
			t.Errorf("tuning from %s: its winner is the grid's best, verdict %s; want 1 each round, within", short(start), v)
		}
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
	// Side by side: the best first, then each distinct winner, 2 runs each.
	if len(g.Side) < 1 || g.Side[0].Knobs != g.Best.Knobs || len(g.Side) > 3 || g.Side[0].Runs != 2 {
		t.Errorf("side by side %d settings, the first %+v; want the best first, then the winners, 2 runs each", len(g.Side), g.Side)
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
	if len(g.Tunes[0].Tune.Steps) > 1 && !between {
		t.Errorf("no grid measurement between the tuner's steps: %v", lines)
	}
}

// TestRunGridMeasuresADisturbedSettingAgain disturbs the model's core
// (other work taking all of it) from the grid's second setting on: each
// later grid setting is measured Rules.MaxAttempts times, each attempt kept as
// disturbed, and none of them may be the grid's best.
func TestRunGridMeasuresADisturbedSettingAgain(t *testing.T) {
	f := newModel(kn(1, 1), 1, 2*time.Millisecond, 500*time.Microsecond)
	target := fakeTarget()
	spec := f.spec(kn(1, 1), 2, "p99<500ms")
	spec.MaxWorkers, spec.MaxPool, spec.Repeats = 2, 2, 1
	spec.Load.Duration = 400 * time.Millisecond
	g, err := RunGrid(context.Background(), spec, nil, target, f.opt(Options{Logf: func(format string, a ...any) {
		if line := fmt.Sprintf(format, a...); strings.HasPrefix(line, "grid 1/4: ") {
			f.disturb(1)
		}
	}}), GridSpec{Seed: 3, Within: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Side) != 0 {
		t.Errorf("side by side with 0 rounds: %d settings measured", len(g.Side))
	}
	if v := g.Tunes[0].Verdict; v.Decided || v.Within || !strings.Contains(v.String(), "no verdict: no rounds side by side") {
		t.Errorf("0 rounds side by side: verdict %s (%+v); want no verdict, saying there were no rounds", v, v)
	}
	if len(g.Grid) != 4 || len(g.Unmeasured) != 3 || len(g.Disturbed) != 3*measure.DefaultMaxAttempts || g.GridMeasurements != 1+3*measure.DefaultMaxAttempts {
		t.Fatalf("grid %d settings, %d never undisturbed, %d disturbed attempts, %d measurements; want 4, 3, %d and %d",
			len(g.Grid), len(g.Unmeasured), len(g.Disturbed), g.GridMeasurements, 3*measure.DefaultMaxAttempts, 1+3*measure.DefaultMaxAttempts)
	}
	for _, m := range g.Disturbed {
		if _, bad := judging().diagnoseDisturbance(m, g.Grid[:1]); !bad {
			t.Errorf("an attempt kept as disturbed read %.1f%% of a core taken by others", m.Readings.Interference)
		}
	}
	if g.Best != g.Grid[0] || slices.Contains(g.Unmeasured, g.Best.Knobs) {
		t.Errorf("the grid's best is %s; want the one setting measured undisturbed, %s", short(g.Best.Knobs), short(g.Grid[0].Knobs))
	}
}
