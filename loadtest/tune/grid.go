package tune

import (
	"context"
	"fmt"
	"slices"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// GridResult is the tuner held against the full grid of workers × pool
// (every rung of both ladders within the spec's bounds) at the same load
// on the same target, measured interleaved with the tunings: after each
// tuner step, a share of the grid; the rest after the last tuning.
type GridResult struct {
	// Tunes are the tunings, one per start, each held against the grid.
	Tunes []*GridTune `json:"tunes"`
	// Grid is every setting of the grid as it counts: its last attempt.
	// Disturbed are the attempts measured again because other work took
	// the target's cores or the hypervisor the generator's (disturbed),
	// kept for the record. A setting whose every attempt was disturbed is
	// in Grid (its last attempt) and in Unmeasured, and left out of the
	// best.
	Grid       []*Measurement `json:"grid"`
	Disturbed  []*Measurement `json:"grid_disturbed,omitempty"`
	Unmeasured []watch.Knobs  `json:"grid_unmeasured,omitempty"`
	// Best is the grid's best setting by the tuner's own rule (pick).
	Best *Measurement `json:"best"`
	// GridMeasurements counts the settings the grid measured (each
	// Repeats runs), attempts measured again included.
	GridMeasurements int `json:"grid_measurements"`
	// Side is the grid's best and the tunings' winners measured again at
	// the end, side by side in interleaved rounds (SideBySide), the best
	// first: the grid's best is the highest of many noisy figures taken
	// minutes apart from the winners', and these compare them at one time.
	Side []*Measurement `json:"side_by_side,omitempty"`
}

// A GridTune is one tuning held against the grid's best.
type GridTune struct {
	Tune *Result `json:"tune"`
	// Winner is the tuner's winner as the grid measured it.
	Winner *Measurement `json:"winner_in_grid"`
	// Ratio is the tuner's winner's throughput over the grid's best's:
	// the ratio of the medians, and the range from the two spreads (min
	// over max, max over min). Within is set when the grid's best is not
	// more than the winner beyond their spreads (the tuner's own rule):
	// the tuner's winner is within the grid's noise of its best, or
	// better.
	Ratio  loadtest.Spread `json:"ratio"`
	Within bool            `json:"within_noise"`
	// RatioInGrid is the same ratio with the winner as the grid measured
	// it (nil when the winner is outside the grid).
	RatioInGrid *loadtest.Spread `json:"ratio_in_grid,omitempty"`
	// TunerMeasurements counts the settings the tuning measured (each
	// Repeats runs).
	TunerMeasurements int `json:"tuner_measurements"`
	// SideRatio and SideWithin are Ratio and Within from the side-by-side
	// measurements (GridResult.Side); absent without them.
	SideRatio  *loadtest.Spread `json:"side_by_side_ratio,omitempty"`
	SideWithin *bool            `json:"side_by_side_within_noise,omitempty"`
	// SidePaired is the winner's throughput over the best's round by
	// round, side by side: each round measures both within seconds, so
	// a slow spell of the machine that lowers a whole round cancels out
	// of its ratio (their median and range over the rounds).
	SidePaired *loadtest.Spread `json:"side_by_side_paired_ratio,omitempty"`
}

// GridAttempts is how many times a grid setting is measured at most when
// other work disturbs it (disturbed), as the tuner measures a disturbed
// step again.
const GridAttempts = 3

// StepAttempts is how many times the tuner measures a step at most when
// it is left out (disturbed, or slow: leftOut), the last one kept
// whatever it reads, as the grid measures a disturbed setting. A second
// attempt right after the first can fall in the same slow spell
// (docs/measurements.md, T44).
const StepAttempts = GridAttempts

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

// RunGrid tunes the target under spec from each of starts (none: spec's
// own start) one after the other, and measures the full grid interleaved
// with them (after each tuner step, the grid's points in proportion to
// the tunings' budgets), then the grid's rest, and holds each tuning's
// winner against the grid's best. The grid is measured in a shuffled
// order (seed), so that drift does not favour one corner; a grid setting
// that other work disturbed is measured again, up to GridAttempts. With
// rounds > 0 the grid's best and the winners are then measured again side
// by side, in that many interleaved rounds.
func RunGrid(ctx context.Context, spec Spec, starts []watch.Knobs, target watch.Target, opt Options, seed uint64, rounds int) (*GridResult, error) {
	gt, err := newTuner(spec, target, Options{Restart: opt.Restart, Logf: opt.Logf})
	if err != nil {
		return nil, err
	}
	if len(starts) == 0 {
		starts = []watch.Knobs{spec.Start}
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	grid := shuffled(Grid(gt.spec), seed)
	per := (len(grid) + gt.spec.Steps*len(starts) - 1) / (gt.spec.Steps * len(starts))
	g := &GridResult{}
	var gridErr error
	next := 0
	measureSome := func(n int) {
		for ; n > 0 && next < len(grid) && gridErr == nil && ctx.Err() == nil; n-- {
			var m *Measurement
			for attempt := 1; attempt <= GridAttempts; attempt++ {
				if m, gridErr = gt.measure(ctx, grid[next]); gridErr != nil {
					return
				}
				g.GridMeasurements++
				d, bad := disturbed(m)
				if !bad {
					break
				}
				g.Disturbed = append(g.Disturbed, m)
				opt.Logf("grid %d/%d: %s: disturbed (attempt %d of %d): %s", next+1, len(grid), short(m.Knobs), attempt, GridAttempts, d.Evidence)
				if attempt == GridAttempts {
					g.Unmeasured = append(g.Unmeasured, m.Knobs)
				}
			}
			g.Grid = append(g.Grid, m)
			opt.Logf("grid %d/%d: %s: %.0f/s (%.0f-%.0f), %s %.2f ms, %s", next+1, len(grid), short(m.Knobs),
				m.Throughput.Median, m.Throughput.Min, m.Throughput.Max, m.LatencyName, m.Latency.Median, metText(m.Met))
			next++
		}
	}
	inner := opt.OnStep
	opt.OnStep = func(st Step) {
		if inner != nil {
			inner(st)
		}
		measureSome(per)
	}
	var tunes []*Result
	for _, k := range starts {
		s := spec
		s.Start = k
		if k != (watch.Knobs{}) {
			opt.Logf("tuning from %s", short(k))
		}
		res, err := Run(ctx, s, target, opt)
		if err != nil {
			return nil, err
		}
		tunes = append(tunes, res)
	}
	measureSome(len(grid))
	if gridErr != nil {
		return nil, fmt.Errorf("grid: %w", gridErr)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(g.Grid) == len(g.Unmeasured) {
		return nil, fmt.Errorf("grid: no setting measured undisturbed")
	}
	g.compare(tunes, gt)
	if rounds > 0 {
		if err := g.sideBySide(ctx, spec, target, opt, rounds); err != nil {
			return nil, fmt.Errorf("side by side: %w", err)
		}
	}
	return g, nil
}

// sideBySide measures the grid's best and the tunings' winners again,
// interleaved, and holds each winner against the best on those figures.
func (g *GridResult) sideBySide(ctx context.Context, spec Spec, target watch.Target, opt Options, rounds int) error {
	ks := []watch.Knobs{g.Best.Knobs}
	for _, t := range g.Tunes {
		if !slices.Contains(ks, t.Tune.Winner) {
			ks = append(ks, t.Tune.Winner)
		}
	}
	ms, err := SideBySide(ctx, spec, target, Options{Restart: opt.Restart}, ks, rounds)
	if err != nil {
		return err
	}
	g.Side = ms
	for i, m := range ms {
		opt.Logf("side by side %d/%d: %s: %.0f/s (%.0f-%.0f), %s %.2f ms", i+1, len(ms), short(m.Knobs), m.Throughput.Median, m.Throughput.Min, m.Throughput.Max, m.LatencyName, m.Latency.Median)
	}
	for _, t := range g.Tunes {
		w := ms[slices.Index(ks, t.Tune.Winner)]
		r := ratio(w.Throughput, ms[0].Throughput)
		within := !more(ms[0], w)
		t.SideRatio, t.SideWithin = &r, &within
		if p, ok := paired(w, ms[0]); ok {
			t.SidePaired = &p
		}
	}
	return nil
}

// compare holds each tuning's winner against the grid's best, the
// settings never measured undisturbed left out.
func (g *GridResult) compare(tunes []*Result, t *tuner) {
	var counted []*Measurement
	for _, m := range g.Grid {
		if !slices.Contains(g.Unmeasured, m.Knobs) {
			counted = append(counted, m)
		}
	}
	g.Best = pick(counted, t.spec.Goal, t.spec.Objectives)
	for _, res := range tunes {
		gt := &GridTune{Tune: res, TunerMeasurements: res.Measurements}
		for _, m := range counted {
			if m.Knobs == res.Winner {
				gt.Winner = m
			}
		}
		w := res.WinnerStep()
		gt.Ratio = ratio(w.Throughput, g.Best.Throughput)
		gt.Within = !more(g.Best, &w.Measurement)
		if gt.Winner != nil {
			r := ratio(gt.Winner.Throughput, g.Best.Throughput)
			gt.RatioInGrid = &r
		}
		g.Tunes = append(g.Tunes, gt)
	}
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
