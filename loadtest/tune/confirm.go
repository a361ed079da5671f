package tune

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/watch"
)

// A Confirmation is the check before the stop: the best of the steps (the
// fewest workers and connections within the noise of the top) and the top
// (the highest median) when they differ, else the best and the runner-up
// (the best of the other steps that meet the objectives, by the same
// rule), both measured again side by side, in Repeats interleaved rounds,
// and compared round by round: steps minutes apart drift with the machine,
// rounds side by side share its moment (docs/measurements.md, "The tuner
// against the full grid"). Fewest is the one with fewer workers and
// connections, Top the other.
type Confirmation struct {
	// Fewest and Top as measured side by side, one run a round (absent
	// when every attempt was disturbed). Disturbed are the attempts left
	// out because other work or a slow spell took the target's CPU
	// (disturbed, slow): the pair is measured again once.
	Fewest    *Measurement   `json:"fewest,omitempty"`
	Top       *Measurement   `json:"top,omitempty"`
	Disturbed []*Measurement `json:"disturbed,omitempty"`
	// Ratio is Top's throughput over Fewest's, round by round: its
	// median, min and max.
	Ratio loadtest.Spread `json:"ratio"`
	// Winner is the one kept, Why the figures behind it.
	Winner watch.Knobs `json:"winner"`
	Why    string      `json:"why"`
}

// confirmable reports whether the tuning that stopped with outcome may
// end with a side-by-side check, the two settings it compares and the
// steps' best (one of them).
func (t *tuner) confirmable(outcome string) (fewest, top, best *Measurement, ok bool) {
	if !t.spec.Confirm || t.spec.Goal != MostThroughput || len(t.measured) < 2 {
		return nil, nil, nil, false
	}
	switch outcome {
	case "met", "capacity", "budget":
	default:
		return nil, nil, nil, false
	}
	best = t.best()
	if !best.Met {
		return nil, nil, nil, false
	}
	var met []*Measurement
	for _, m := range t.measured {
		if m.Met && !t.beaten[m.Knobs] {
			met = append(met, m)
		}
	}
	top = slices.MaxFunc(met, func(a, b *Measurement) int { return cmp.Compare(a.Throughput.Median, b.Throughput.Median) })
	if top != best {
		return best, top, best, true
	}
	// The best is the top: checked against the runner-up, the fewer of
	// the two as the fewest.
	rest := slices.DeleteFunc(met, func(m *Measurement) bool { return m == best })
	if len(rest) == 0 {
		return nil, nil, nil, false
	}
	up := pick(rest, t.spec.Goal, t.spec.Objectives)
	if resources(up.Knobs) < resources(best.Knobs) {
		return up, best, best, true
	}
	return best, up, best, true
}

// confirm measures the pair confirmable names side by side before the
// stop (Confirmation) and keeps the top when only it meets the objectives
// there, or when both meet them (or both miss) and its median round
// serves more than the fewest's beyond the noise floor: the top is then
// the winner and the fewest is beaten, left out of every later best;
// else the fewest is the winner. A disturbed or slow pair is measured
// again once; disturbed twice, the check is undecided and the higher
// median of the steps stands (the steps could not tell the two apart,
// and the goal is throughput, where rounds in a slow spell range far
// wider than the noise: docs/measurements.md, "The tuner against the full
// grid"), beating nothing. It returns the
// check (nil when none ran), the measurements it took and whether the
// check kept another than the steps' best and more resources (the tuning
// may go on above it).
func (t *tuner) confirm(ctx context.Context, outcome string) (c *Confirmation, taken int, moved bool) {
	fewest, top, best, ok := t.confirmable(outcome)
	if !ok || ctx.Err() != nil {
		return nil, 0, false
	}
	if t.spec.Time > 0 && time.Since(t.started) >= t.spec.Time {
		t.opt.Logf("not confirmed side by side: the budget of %v is spent", t.spec.Time)
		return nil, 0, false
	}
	rounds := t.spec.Repeats
	what := fmt.Sprintf("%s (the fewest within the noise) and %s (the highest median)", short(fewest.Knobs), short(top.Knobs))
	if hi := higher(fewest, top); hi == best {
		what = fmt.Sprintf("%s (the best, the highest median) and %s (the runner-up)", short(hi.Knobs), short(other(hi, fewest, top).Knobs))
	}
	t.opt.Logf("confirm: %s, side by side in %d interleaved rounds", what, rounds)
	if t.opt.OnConfirm != nil {
		t.opt.OnConfirm(fewest.Knobs, top.Knobs, rounds)
	}
	ks := []watch.Knobs{fewest.Knobs, top.Knobs}
	ms, err := t.rounds(ctx, ks, rounds)
	if err != nil {
		t.opt.Logf("not confirmed side by side: %v; the steps' best stands", err)
		return nil, 0, false
	}
	taken = len(ms)
	c = &Confirmation{Winner: fewest.Knobs}
	if d, bad := t.upset(ms); bad {
		// Measured again, once (a step gets Rules.MaxAttempts).
		t.opt.Logf("confirm: left out: %s; measuring both again side by side", d.Evidence)
		c.Disturbed = ms
		if ms, err = t.rounds(ctx, ks, rounds); err != nil {
			t.opt.Logf("not confirmed side by side: %v; the steps' best stands", err)
			return nil, taken, false
		}
		taken += len(ms)
		if d, bad := t.upset(ms); bad {
			// Undecided: the steps could not tell the two apart, and the
			// goal is throughput, so the higher median stands; nothing
			// was beaten, and the tuning does not go on from it.
			c.Disturbed = append(c.Disturbed, ms...)
			hi := higher(fewest, top)
			c.Winner = hi.Knobs
			c.Why = fmt.Sprintf("not confirmed: disturbed twice side by side (%s): within the steps' noise, %s, the higher median (%.0f/s against %.0f/s), stands", d.Evidence,
				short(hi.Knobs), hi.Throughput.Median, other(hi, fewest, top).Throughput.Median)
			t.opt.Logf("confirm: %s", c.Why)
			t.winner = hi
			return c, taken, false
		}
	}
	c.Fewest, c.Top = ms[0], ms[1]
	c.Ratio = measure.Ratios(ms[1].Throughputs, ms[0].Throughputs, 0).Ratio
	rng := fmt.Sprintf("%s served %.3f (%.3f-%.3f) times %s's throughput round by round (medians %.0f/s and %.0f/s)", short(top.Knobs), c.Ratio.Median, c.Ratio.Min, c.Ratio.Max,
		short(fewest.Knobs), ms[1].Throughput.Median, ms[0].Throughput.Median)
	both := ""
	if !ms[0].Met && !ms[1].Met {
		both = fmt.Sprintf("both missed %s side by side; ", t.objectives())
	}
	switch {
	case !ms[1].Met && ms[0].Met:
		c.Why = fmt.Sprintf("side by side, %s missed %s and %s met them: %s, the fewer, stays", short(top.Knobs), t.objectives(), short(fewest.Knobs), short(fewest.Knobs))
	case !ms[0].Met && ms[1].Met:
		c.Winner = top.Knobs
		c.Why = fmt.Sprintf("side by side, %s missed %s and %s met them: %s wins", short(fewest.Knobs), t.objectives(), short(top.Knobs), short(top.Knobs))
	case c.Ratio.Median > 1+t.spec.Rules.NoiseFloor/100:
		c.Winner = top.Knobs
		c.Why = fmt.Sprintf("%sside by side, %s: more beyond the noise (±%.0f %%): %s wins", both, rng, t.spec.Rules.NoiseFloor, short(top.Knobs))
	default:
		c.Why = fmt.Sprintf("%sside by side, %s: within the noise (±%.0f %%): %s, the fewer, stays", both, rng, t.spec.Rules.NoiseFloor, short(fewest.Knobs))
	}
	t.opt.Logf("confirm: %s", c.Why)
	if c.Winner == top.Knobs {
		t.winner = top
		t.beaten[fewest.Knobs] = true
	} else if fewest != best {
		// The runner-up, the fewer, stays: the best's lead was not the
		// setting's.
		t.winner = fewest
	}
	return c, taken, c.Winner == top.Knobs && top != best
}

// higher is the one of a and b whose steps' median throughput is the
// higher (a when they are equal).
func higher(a, b *Measurement) *Measurement {
	if b.Throughput.Median > a.Throughput.Median {
		return b
	}
	return a
}

// other is the one of a and b that is not m.
func other(m, a, b *Measurement) *Measurement {
	if m == a {
		return b
	}
	return a
}

// onward is where the tuning goes on after a check that kept the top: the
// first unmeasured setting above it in the bounds, more of every knob
// first, then more of each in the list's order. The check found more
// serving more; the settings below the top are the beaten best's side.
func (t *tuner) onward(top watch.Knobs) (watch.Knobs, bool) {
	cands := []watch.Knobs{t.knobs.shift(top, 1, -1)}
	for i := range t.knobs {
		cands = append(cands, t.knobs.shift(top, 1, i))
	}
	for _, k := range cands {
		if k != top && t.knobs.capped(k) == k && t.knobs.outside(k) == "" && t.visited(k) == nil {
			return k, true
		}
	}
	return watch.Knobs{}, false
}

// leftOut says why m is left out of every comparison and measured again,
// when it is: other work took the target's cores (disturbed), or its CPU
// per request was far above the steps' before it (slow).
func (t *tuner) leftOut(m *Measurement) (Diagnosis, bool) {
	if d, ok := t.diagnoseDisturbance(m, t.measured); ok {
		return d, true
	}
	return t.diagnoseSlow(m, t.measured)
}

// upset reports whether one of a side-by-side check's measurements was
// disturbed (other work on the target's cores) or slow (its CPU per
// request far above the steps'), as a step would be left out for it.
func (t *tuner) upset(ms []*Measurement) (Diagnosis, bool) {
	for _, m := range ms {
		if d, ok := t.leftOut(m); ok {
			d.Evidence = short(m.Knobs) + ": " + d.Evidence
			return d, true
		}
	}
	return Diagnosis{}, false
}
