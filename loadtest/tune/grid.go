package tune

import (
	"context"
	"fmt"
	"slices"

	"bbslab/loadtest"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/watch"
)

// GridResult is the tuner held against the full grid of its knobs' ladders at the same load.
type GridResult struct {
	Tunes      []*GridTune    `json:"tunes"`
	Grid       []*Measurement `json:"grid"`
	Disturbed  []*Measurement `json:"grid_disturbed,omitempty"`
	Unmeasured []watch.Knobs  `json:"grid_unmeasured,omitempty"` // never measured undisturbed
	// Best is the grid's best setting by the tuner's own rule (pick).
	Best             *Measurement `json:"best"`
	GridMeasurements int          `json:"grid_measurements"`
	// Side is the grid's best and the winners measured side by side at the end.
	Side []*Measurement `json:"side_by_side,omitempty"`
	// Control is the grid's best against itself in those rounds.
	Control *measure.RatioVerdict `json:"side_by_side_control,omitempty"`
	Spec    GridSpec              `json:"grid_spec"`
}

// A GridTune is one tuning held against the grid's best.
type GridTune struct {
	Tune *Result `json:"tune"`
	// Winner is the tuner's winner as the grid measured it.
	Winner *Measurement `json:"winner_in_grid"`
	// Ratio is the winner's throughput over the grid's best's: information, not the verdict.
	Ratio             loadtest.Spread  `json:"ratio"`
	RatioInGrid       *loadtest.Spread `json:"ratio_in_grid,omitempty"`
	TunerMeasurements int              `json:"tuner_measurements"`
	SideRatio         *loadtest.Spread `json:"side_by_side_ratio,omitempty"`
	// Verdict says whether the winner is within the grid's best.
	Verdict measure.RatioVerdict `json:"side_by_side_verdict"`
}

// GridSpec is how RunGrid holds the tunings against the grid, each field's meaning its help tag.
type GridSpec struct {
	Seed   uint64  `json:"seed" flag:"grid-seed" default:"1" help:"seed of the grid's shuffled order"`
	Rounds int     `json:"side_by_side_rounds" flag:"side-by-side" arg:"N" default:"5" help:"measure the grid's best and the winners again at the end, side by side in N interleaved rounds, and judge each winner on them (0: not, and no verdict)"`
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

// RunGrid tunes the target under spec from each of starts (none: spec's own start), measures
// the full grid interleaved with the tunings, and holds each winner against the grid's best.
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

func (g *GridResult) compare(tunes []*Result, t *tuner, within float64) {
	counted := g.counted()
	g.Best = pick(counted, t.spec.Goal, t.spec.Objectives)
	for _, res := range tunes {
		gt := &GridTune{Tune: res, TunerMeasurements: res.Measurements, Verdict: measure.Ratios(nil, nil, within)}
		gt.Ratio = ratio(res.WinnerStep().Throughput, g.Best.Throughput)
		if i := slices.IndexFunc(counted, func(m *Measurement) bool { return m.Knobs == res.Winner }); i >= 0 {
			gt.Winner = counted[i]
			r := ratio(gt.Winner.Throughput, g.Best.Throughput)
			gt.RatioInGrid = &r
		}
		g.Tunes = append(g.Tunes, gt)
	}
}

func (g *GridResult) counted() []*Measurement {
	return slices.DeleteFunc(slices.Clone(g.Grid), func(m *Measurement) bool { return slices.Contains(g.Unmeasured, m.Knobs) })
}

func ratio(a, b loadtest.Spread) loadtest.Spread {
	if b.Median <= 0 || b.Min <= 0 || b.Max <= 0 {
		return loadtest.Spread{}
	}
	return loadtest.Spread{Median: a.Median / b.Median, Min: a.Min / b.Max, Max: a.Max / b.Min, N: min(a.N, b.N)}
}

// WinnerStep is the last step at the winner not measured again.
func (r *Result) WinnerStep() Step {
	var out Step
	for _, st := range r.Steps {
		if st.Knobs == r.Winner && !st.Diagnosis.Limit.again() {
			out = st
		}
	}
	return out
}

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
