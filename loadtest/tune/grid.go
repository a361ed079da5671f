package tune

import (
	"context"
	"fmt"
	"slices"

	"bbslab/loadtest"
	"bbslab/loadtest/measure"
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
	// the target's cores or the hypervisor the generator's beyond the
	// grid's undisturbed measurements before (the disturbance rule), kept
	// for the record. A setting whose every attempt was disturbed is
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
	// Control is the grid's best against itself: measured twice in each
	// side-by-side round (last in Side), judged as a winner is. Equal
	// settings must read within the threshold both ways, or the rounds'
	// noise is beyond it and no tuning's verdict is decided.
	Control *measure.RatioVerdict `json:"side_by_side_control,omitempty"`
	// Spec is how the grid was ordered, measured at the end and judged.
	Spec GridSpec `json:"grid_spec"`
}

// A GridTune is one tuning held against the grid's best.
type GridTune struct {
	Tune *Result `json:"tune"`
	// Winner is the tuner's winner as the grid measured it.
	Winner *Measurement `json:"winner_in_grid"`
	// Ratio is the tuner's winner's throughput over the grid's best's:
	// the ratio of the medians, and the range from the two spreads (min
	// over max, max over min). Figures taken minutes apart: information,
	// not the verdict.
	Ratio loadtest.Spread `json:"ratio"`
	// RatioInGrid is the same ratio with the winner as the grid measured
	// it (nil when the winner is outside the grid).
	RatioInGrid *loadtest.Spread `json:"ratio_in_grid,omitempty"`
	// TunerMeasurements counts the settings the tuning measured (each
	// Repeats runs).
	TunerMeasurements int `json:"tuner_measurements"`
	// SideRatio is Ratio from the side-by-side measurements at the end
	// (GridResult.Side); absent without them.
	SideRatio *loadtest.Spread `json:"side_by_side_ratio,omitempty"`
	// Verdict says whether the winner is within the grid's best: the
	// median of its round-by-round throughput ratios, the winner's over
	// the best's, side by side at the end, against GridSpec.Within (a
	// slow spell that lowers a whole round cancels out of that round's
	// ratio, where one slow round widens both spreads until a winner far
	// below the best overlaps it); undecided without the rounds.
	Verdict measure.RatioVerdict `json:"side_by_side_verdict"`
}

// GridSpec is how RunGrid holds the tunings against the grid: the grid's
// order, the rounds that measure the grid's best and the winners again
// side by side at the end, and the verdict's threshold.
type GridSpec struct {
	// Seed shuffles the grid's order, so that drift favours no corner and
	// a seed replays an order.
	Seed uint64 `json:"seed" flag:"grid-seed" default:"1" help:"seed of the grid's shuffled order"`
	// Rounds is how many interleaved rounds measure the grid's best and
	// the winners again at the end (0: none, and no verdict).
	Rounds int `json:"side_by_side_rounds" flag:"side-by-side" arg:"N" default:"5" help:"measure the grid's best and the winners again at the end, side by side in N interleaved rounds, and judge each winner on them (0: not, and no verdict)"`
	// Within is the least median of the round-by-round throughput
	// ratios, a winner's over the grid's best's, at which the winner is
	// within the grid's best (GridTune.Verdict). It lies beyond the drift of
	// one setting measured twice on the lab's VM and above the ratios of
	// winners off the grid's plateau (docs/experiments.md, "The tuner against the grid").
	Within float64 `json:"within" flag:"within" default:"0.95" help:"a winner is within the grid's best when the median of its round-by-round throughput ratios (winner over best, side by side) is at least this"`
}

// Validate checks the spec's bounds.
func (s GridSpec) Validate() error {
	switch {
	case s.Rounds < 0 || s.Rounds > 20:
		return fmt.Errorf("%w: side-by-side %d: want 0 to 20 rounds", errSpec, s.Rounds)
	case !(s.Within > 0 && s.Within <= 1):
		return fmt.Errorf("%w: within %g: want more than 0 and at most 1 (a share of the grid's best's throughput)", errSpec, s.Within)
	}
	return nil
}

// RunGrid tunes the target under spec from each of starts (none: spec's
// own start) one after the other, and measures the full grid interleaved
// with them (after each tuner step, the grid's points in proportion to
// the tunings' budgets), then the grid's rest, and holds each tuning's
// winner against the grid's best. The grid is measured in a shuffled
// order (gs.Seed), so that drift does not favour one corner; a grid
// setting that other work disturbed is measured again, up to
// Rules.MaxAttempts in all. With gs.Rounds > 0 the grid's best and the winners are
// then measured again side by side, in that many interleaved rounds, and
// each winner judged on them (GridTune.Verdict).
func RunGrid(ctx context.Context, spec Spec, starts []watch.Knobs, target watch.Target, opt Options, gs GridSpec) (*GridResult, error) {
	if err := gs.Validate(); err != nil {
		return nil, err
	}
	gt, err := newTuner(spec, target, Options{Restart: opt.Restart, Logf: opt.Logf, Measurer: opt.Measurer})
	if err != nil {
		return nil, err
	}
	if len(starts) == 0 {
		starts = []watch.Knobs{spec.Start}
	}
	opt.Logf = gt.opt.Logf
	grid := shuffled(gt.knobs.grid(), gs.Seed)
	opt.Logf("grid: %d settings (every rung of each knob within its bounds), each measured as a tuner step", len(grid))
	per := (len(grid) + gt.spec.Steps*len(starts) - 1) / (gt.spec.Steps * len(starts))
	g := &GridResult{Spec: gs}
	var gridErr error
	next := 0
	measureSome := func(n int) {
		for ; n > 0 && next < len(grid) && gridErr == nil && ctx.Err() == nil; n-- {
			var m *Measurement
			tries := gt.spec.Rules.MaxAttempts
			for attempt := 1; attempt <= tries; attempt++ {
				if m, gridErr = gt.measure(ctx, grid[next]); gridErr != nil {
					return
				}
				g.GridMeasurements++
				d, bad := gt.diagnoseDisturbance(m, g.counted())
				if !bad {
					break
				}
				g.Disturbed = append(g.Disturbed, m)
				opt.Logf("grid %d/%d: %s: disturbed (attempt %d of %d): %s", next+1, len(grid), short(m.Knobs), attempt, tries, d.Evidence)
				if attempt == tries {
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
	g.compare(tunes, gt, gs.Within)
	if gs.Rounds > 0 {
		if err := g.confirmRounds(ctx, spec, target, opt, gs); err != nil {
			return nil, fmt.Errorf("side by side: %w", err)
		}
	}
	return g, nil
}

// confirmRounds measures the grid's best and the tunings' winners again,
// interleaved, and judges each winner against the best on those rounds.
func (g *GridResult) confirmRounds(ctx context.Context, spec Spec, target watch.Target, opt Options, gs GridSpec) error {
	ks := []watch.Knobs{g.Best.Knobs}
	for _, t := range g.Tunes {
		if !slices.Contains(ks, t.Tune.Winner) {
			ks = append(ks, t.Tune.Winner)
		}
	}
	ks = append(ks, g.Best.Knobs) // the control: the best again, in every round
	ms, err := SideBySide(ctx, spec, target, Options{Restart: opt.Restart, Measurer: opt.Measurer}, ks, gs.Rounds)
	if err != nil {
		return err
	}
	g.Side = ms
	control := measure.Control(ms[len(ms)-1].Throughputs, ms[0].Throughputs, gs.Within)
	g.Control = &control
	for i, m := range ms {
		opt.Logf("side by side %d/%d: %s: %.0f/s (%.0f-%.0f), %s %.2f ms", i+1, len(ms), short(m.Knobs), m.Throughput.Median, m.Throughput.Min, m.Throughput.Max, m.LatencyName, m.Latency.Median)
	}
	for _, t := range g.Tunes {
		w := ms[slices.Index(ks, t.Tune.Winner)]
		r := ratio(w.Throughput, ms[0].Throughput)
		t.SideRatio = &r
		t.Verdict = control.Undecides(measure.Ratios(w.Throughputs, ms[0].Throughputs, gs.Within))
	}
	return nil
}

// compare holds each tuning's winner against the grid's best, the
// settings never measured undisturbed left out; the verdict waits for the
// side-by-side rounds (undecided without them).
func (g *GridResult) compare(tunes []*Result, t *tuner, within float64) {
	counted := g.counted()
	g.Best = pick(counted, t.spec.Goal, t.spec.Objectives)
	for _, res := range tunes {
		gt := &GridTune{Tune: res, TunerMeasurements: res.Measurements, Verdict: measure.Ratios(nil, nil, within)}
		for _, m := range counted {
			if m.Knobs == res.Winner {
				gt.Winner = m
			}
		}
		w := res.WinnerStep()
		gt.Ratio = ratio(w.Throughput, g.Best.Throughput)
		if gt.Winner != nil {
			r := ratio(gt.Winner.Throughput, g.Best.Throughput)
			gt.RatioInGrid = &r
		}
		g.Tunes = append(g.Tunes, gt)
	}
}

// counted are the grid's settings measured undisturbed (or their last
// attempt).
func (g *GridResult) counted() []*Measurement {
	return slices.DeleteFunc(slices.Clone(g.Grid), func(m *Measurement) bool { return slices.Contains(g.Unmeasured, m.Knobs) })
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
