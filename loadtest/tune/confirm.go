package tune

import (
	"context"
	"fmt"
	"slices"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// A Confirmation is the check before the stop when the best of the steps
// (the fewest workers and connections within the noise of the top) is not
// the top (the highest median): both measured again side by side, in
// Repeats interleaved rounds, and compared round by round. Three repeats
// back to back can be as wide as the difference between neighbours, and
// steps minutes apart drift with the machine; rounds side by side share
// the machine's moment (docs/measurements.md, "The tuner against the
// full grid").
type Confirmation struct {
	// Fewest and Top as measured side by side, one run a round.
	Fewest *Measurement `json:"fewest"`
	Top    *Measurement `json:"top"`
	// Ratio is Top's throughput over Fewest's, round by round: its
	// median, min and max.
	Ratio loadtest.Spread `json:"ratio"`
	// Winner is the one kept, Why the figures behind it.
	Winner watch.Knobs `json:"winner"`
	Why    string      `json:"why"`
}

// confirmable reports whether the tuning that stopped with outcome may
// end with a side-by-side check, and the two settings it compares.
func (t *tuner) confirmable(outcome string) (fewest, top *Measurement, ok bool) {
	if !t.spec.Confirm || t.spec.Goal != MostThroughput || len(t.measured) < 2 {
		return nil, nil, false
	}
	switch outcome {
	case "met", "capacity", "budget":
	default:
		return nil, nil, false
	}
	fewest = t.best()
	if !fewest.Met {
		return nil, nil, false
	}
	var met []*Measurement
	for _, m := range t.measured {
		if m.Met {
			met = append(met, m)
		}
	}
	top = slices.MaxFunc(met, func(a, b *Measurement) int { return cmpFloat(a.Throughput.Median, b.Throughput.Median) })
	return fewest, top, top != fewest
}

// confirm measures the best and the top side by side before the stop
// (Confirmation), when they differ, and keeps the top when it meets the
// objectives there and its median round serves more than the best's
// beyond the noise floor (or the best misses them there). It reports
// the measurements it took.
func (t *tuner) confirm(ctx context.Context, res *Result) int {
	fewest, top, ok := t.confirmable(res.Outcome)
	if !ok || ctx.Err() != nil {
		return 0
	}
	if t.spec.Time > 0 && time.Since(t.started) >= t.spec.Time {
		t.opt.Logf("not confirmed side by side: the budget of %v is spent", t.spec.Time)
		return 0
	}
	rounds := t.spec.Repeats
	t.opt.Logf("confirm: %s (the fewest within the noise) and %s (the highest median), side by side in %d interleaved rounds", short(fewest.Knobs), short(top.Knobs), rounds)
	if t.opt.OnConfirm != nil {
		t.opt.OnConfirm(fewest.Knobs, top.Knobs, rounds)
	}
	ms, err := t.sideBySide(ctx, []watch.Knobs{fewest.Knobs, top.Knobs}, rounds)
	if err != nil {
		t.opt.Logf("not confirmed side by side: %v; the steps' best stands", err)
		return 0
	}
	c := &Confirmation{Fewest: ms[0], Top: ms[1], Winner: fewest.Knobs}
	c.Ratio, _ = paired(ms[1], ms[0])
	rng := fmt.Sprintf("%s served %.3f (%.3f-%.3f) times %s's throughput round by round (medians %.0f/s and %.0f/s)", short(top.Knobs), c.Ratio.Median, c.Ratio.Min, c.Ratio.Max,
		short(fewest.Knobs), ms[1].Throughput.Median, ms[0].Throughput.Median)
	switch {
	case !ms[1].Met:
		c.Why = fmt.Sprintf("side by side, %s missed %s: %s, the fewer, stays", short(top.Knobs), t.objectives(), short(fewest.Knobs))
	case !ms[0].Met:
		c.Winner = top.Knobs
		c.Why = fmt.Sprintf("side by side, %s missed %s and %s met them: %s wins", short(fewest.Knobs), t.objectives(), short(top.Knobs), short(top.Knobs))
	case c.Ratio.Median > 1+t.spec.Noise:
		c.Winner = top.Knobs
		c.Why = fmt.Sprintf("side by side, %s: more beyond the noise (±%.0f %%): %s wins", rng, 100*t.spec.Noise, short(top.Knobs))
	default:
		c.Why = fmt.Sprintf("side by side, %s: within the noise (±%.0f %%): %s, the fewer, stays", rng, 100*t.spec.Noise, short(fewest.Knobs))
	}
	t.opt.Logf("confirm: %s", c.Why)
	res.Confirm = c
	if c.Winner == top.Knobs {
		t.winner = top
		res.Stopped += "; then " + c.Why
	}
	return len(ms)
}

// paired is a's throughput over b's run by run (side by side: round by
// round), false when their runs do not pair up.
func paired(a, b *Measurement) (loadtest.Spread, bool) {
	if len(a.Throughputs) != len(b.Throughputs) || len(a.Throughputs) == 0 {
		return loadtest.Spread{}, false
	}
	per := make([]float64, len(a.Throughputs))
	for i, v := range a.Throughputs {
		if d := b.Throughputs[i]; d > 0 {
			per[i] = v / d
		}
	}
	return loadtest.SpreadOf(per), true
}
