package tune

import (
	"context"
	"fmt"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// GridResult is the tuner held against the full grid of workers × pool
// (every rung of both ladders within the spec's bounds) at the same load
// on the same target, measured interleaved with the tuning: after each
// tuner step, a share of the grid; the rest after the tuning.
type GridResult struct {
	Tune *Result        `json:"tune"`
	Grid []*Measurement `json:"grid"`
	// Best is the grid's best setting by the tuner's own rule (pick);
	// Winner the tuner's, as the grid measured it too.
	Best   *Measurement `json:"best"`
	Winner *Measurement `json:"winner_in_grid"`
	// Ratio is the tuner's winner's throughput over the grid's best's:
	// the ratio of the medians, and the range from the two spreads (min
	// over max, max over min). Within is set when the spreads overlap:
	// the tuner's winner is within the grid's noise of its best, or
	// better.
	Ratio  loadtest.Spread `json:"ratio"`
	Within bool            `json:"within_noise"`
	// RatioInGrid is the same ratio with the winner as the grid measured
	// it (nil when the winner is outside the grid).
	RatioInGrid *loadtest.Spread `json:"ratio_in_grid,omitempty"`
	// TunerMeasurements and GridMeasurements count the settings each
	// measured (each Repeats runs).
	TunerMeasurements int `json:"tuner_measurements"`
	GridMeasurements  int `json:"grid_measurements"`
}

// Grid returns the settings of the full grid within spec's bounds (its
// defaults filled in), workers major.
func Grid(spec Spec) []watch.Knobs {
	spec.MinWorkers, spec.MinPool = defaultInt(spec.MinWorkers, 1), defaultInt(spec.MinPool, 1)
	spec.MaxWorkers, spec.MaxPool = defaultInt(spec.MaxWorkers, 100), defaultInt(spec.MaxPool, 100)
	var out []watch.Knobs
	for _, w := range DefaultLadder(spec.MinWorkers, spec.MaxWorkers) {
		for _, p := range DefaultLadder(spec.MinPool, spec.MaxPool) {
			out = append(out, watch.Knobs{Workers: w, Pool: p})
		}
	}
	return out
}

// RunGrid tunes the target under spec and measures the full grid
// interleaved with it (after each tuner step, the grid's points in
// proportion to the tuner's budget), then the grid's rest, and holds the
// tuner's winner against the grid's best. The grid is measured in a
// shuffled order (seed), so that drift does not favour one corner.
func RunGrid(ctx context.Context, spec Spec, target watch.Target, opt Options, seed uint64) (*GridResult, error) {
	gt, err := newTuner(spec, target, Options{})
	if err != nil {
		return nil, err
	}
	grid := shuffled(Grid(gt.spec), seed)
	per := (len(grid) + gt.spec.Steps - 1) / gt.spec.Steps
	var measured []*Measurement
	var gridErr error
	next := 0
	measureSome := func(n int) {
		for ; n > 0 && next < len(grid) && gridErr == nil && ctx.Err() == nil; n-- {
			m, err := gt.measure(ctx, grid[next])
			if err != nil {
				gridErr = err
				return
			}
			measured = append(measured, m)
			opt.Logf("grid %d/%d: %s: %.0f/s (%.0f-%.0f), %s %.2f ms, %s", next+1, len(grid), short(m.Knobs),
				m.Throughput.Median, m.Throughput.Min, m.Throughput.Max, m.LatencyName, m.Latency.Median, metText(m.Met))
			next++
		}
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	inner := opt.OnStep
	opt.OnStep = func(st Step) {
		if inner != nil {
			inner(st)
		}
		measureSome(per)
	}
	res, err := Run(ctx, spec, target, opt)
	if err != nil {
		return nil, err
	}
	measureSome(len(grid))
	if gridErr != nil {
		return nil, fmt.Errorf("grid: %w", gridErr)
	}
	if len(measured) == 0 {
		return nil, fmt.Errorf("grid: nothing measured")
	}
	return compareGrid(res, measured, gt), nil
}

// compareGrid holds the tuner's winner against the grid's best.
func compareGrid(res *Result, grid []*Measurement, t *tuner) *GridResult {
	g := &GridResult{Tune: res, Grid: grid, TunerMeasurements: res.Measurements, GridMeasurements: len(grid)}
	g.Best = pick(grid, t.spec.Goal, t.spec.Objectives)
	for _, m := range grid {
		if m.Knobs == res.Winner {
			g.Winner = m
		}
	}
	w := res.WinnerStep()
	g.Ratio = ratio(w.Throughput, g.Best.Throughput)
	g.Within = !more(g.Best, &w.Measurement)
	if g.Winner != nil {
		r := ratio(g.Winner.Throughput, g.Best.Throughput)
		g.RatioInGrid = &r
	}
	return g
}

// ratio is a over b: the medians' ratio, and the range the spreads allow.
func ratio(a, b loadtest.Spread) loadtest.Spread {
	if b.Median <= 0 || b.Min <= 0 || b.Max <= 0 {
		return loadtest.Spread{}
	}
	return loadtest.Spread{Median: a.Median / b.Median, Min: a.Min / b.Max, Max: a.Max / b.Min, N: min(a.N, b.N)}
}

// WinnerStep is the last undisturbed step at the winner.
func (r *Result) WinnerStep() Step {
	var out Step
	for _, st := range r.Steps {
		if st.Knobs == r.Winner && st.Diagnosis.Limit != Disturbed {
			out = st
		}
	}
	return out
}

// shuffled returns ks in an order drawn from seed (xorshift, so that a
// seed replays the same order).
func shuffled(ks []watch.Knobs, seed uint64) []watch.Knobs {
	out := append([]watch.Knobs(nil), ks...)
	x := seed | 1
	for i := len(out) - 1; i > 0; i-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := int(x % uint64(i+1))
		out[i], out[j] = out[j], out[i]
	}
	return out
}
