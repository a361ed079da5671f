package tune

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"bbslab/loadtest"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/watch"
)

// take measures k, after the first step side by side with the best.
func (t *tuner) take(ctx context.Context, k watch.Knobs) (m, beside *Measurement, err error) {
	if t.best == nil {
		m, err = t.measure(ctx, k)
		t.measurements++
		return m, nil, err
	}
	ms, err := t.rounds(ctx, []watch.Knobs{t.best.Knobs, k}, t.spec.Repeats)
	if err != nil {
		return nil, nil, err
	}
	t.measurements += 2
	return ms[1], ms[0], nil
}

// upset says why a step is measured again, when it is: a disturbance, or
// a slow spell in which the best missed an objective it had met.
func (t *tuner) upset(m, beside *Measurement) (Diagnosis, bool) {
	for _, x := range []*Measurement{beside, m} {
		if x == nil {
			continue
		}
		if d, ok := t.diagnoseDisturbance(x, t.measured); ok {
			if beside != nil {
				d.Evidence = short(x.Knobs) + ": " + d.Evidence
			}
			return d, true
		}
	}
	if beside == nil {
		return Diagnosis{}, false
	}
	for i, v := range beside.Objectives {
		if !v.Pass && t.best.Objectives[i].Pass {
			return Diagnosis{Limit: Disturbed, Reading: v.Objective, Value: v.Value.Median,
				Evidence: fmt.Sprintf("the best, %s, missed %s side by side (%.3g), which it met when it became the best: the rounds fell in a slow spell of the machine", short(beside.Knobs), v.Objective, v.Value.Median)}, true
		}
	}
	return Diagnosis{}, false
}

// versus decides m against the best measured beside it and sets m's
// level.
func (t *tuner) versus(m, beside *Measurement) (won, lost bool, said string) {
	w := t.spec.Rules.Within
	v, diff := t.ratio(m, beside)
	t.level(m, v)
	lost = diff < 0
	said = fmt.Sprintf("side by side with the best, %s, in %d rounds: %.3f (%.3f-%.3f) times its throughput, %s", short(beside.Knobs), len(v.Rounds),
		v.Ratio.Median, v.Ratio.Min, v.Ratio.Max, [...]string{"less", fmt.Sprintf("as good (median %g to %.3g, rounds on both sides of 1 within ±%g %%)", w, 1/w, t.spec.Rules.NoiseFloor), "more"}[diff+1])
	won, why := t.decide(m, beside, diff)
	if won {
		return true, lost, said + why + ": it becomes the best"
	}
	return false, lost, said + why + fmt.Sprintf(": %s stays the best", short(beside.Knobs))
}

// level sets m's level, its throughput relative to the first step chained
// through the side-by-side medians.
func (t *tuner) level(m *Measurement, v measure.RatioVerdict) {
	m.Level = cmp.Or(t.best.Level, 1)
	if v.Decided {
		m.Level *= v.Ratio.Median
	}
}

// decide says whether m beats the best beside it, given how their
// throughputs compare (diff: +1 more, -1 less, 0 as good); an "as good"
// step with fewer resources wins only while its level stays within Within
// of the highest, so that a chain cannot drift down.
func (t *tuner) decide(m, beside *Measurement, diff int) (bool, string) {
	w := t.spec.Rules.Within
	fewer, same := resources(m.Knobs) < resources(beside.Knobs), resources(m.Knobs) == resources(beside.Knobs)
	top := t.topLevel(m.Met)
	switch c := closer(m, beside, t.spec.Objectives); {
	case m.Met != beside.Met:
		return m.Met, fmt.Sprintf("; it %s the objectives, which the best %s", metText(m.Met), [...]string{"missed", "met"}[b2i(beside.Met)])
	case c != 0:
		return c > 0, fmt.Sprintf("; both miss the objectives, it %s", [...]string{"farther from them", "", "closer to them"}[c+1])
	case t.spec.Goal == LeastResources:
		return fewer || same && diff > 0, ""
	case diff == 0 && fewer && m.Level < w*top:
		return false, fmt.Sprintf("; with fewer, but %.3f of the highest level measured, below %g", m.Level/top, w)
	}
	return diff > 0 || diff == 0 && fewer, ""
}

// ratio is m's throughput over the best's round by round, and whether it
// is more (+1), less (-1) or as good (0): more or less by its median
// beyond Within, or by every round beyond the noise floor.
func (t *tuner) ratio(m, beside *Measurement) (measure.RatioVerdict, int) {
	w := t.spec.Rules.Within
	v := measure.Ratios(m.Throughputs, beside.Throughputs, w)
	if !v.Decided {
		return v, 0
	}
	r, one := measure.Band(v.Ratio, t.spec.Rules.NoiseFloor), loadtest.Spread{Median: 1, Min: 1, Max: 1}
	switch d := byMedian(v.Ratio.Median, w); {
	case d != 0:
		return v, d
	case measure.Beyond(r, one):
		return v, 1
	case measure.Beyond(one, r):
		return v, -1
	}
	return v, 0
}

// byMedian is +1 for a median ratio above 1/w, -1 below w, else 0.
func byMedian(x, w float64) int { return b2i(x > 1/w) - b2i(x < w) }

// undecided says why the decision between m and the best beside it
// rests on what their rounds cannot settle, when it does: it would turn
// were an objective that either side's median meets (misses) read at the
// other end of that median's interval (Rules.Confidence), or, for a tie,
// were the throughput ratio at either end of its median's interval.
func (t *tuner) undecided(m, beside *Measurement) (string, bool) {
	if beside == nil {
		return "", false
	}
	c, w := t.spec.Rules.Confidence, t.spec.Rules.Within
	v, diff := t.ratio(m, beside)
	t.level(m, v)
	type other struct {
		a, b *Measurement
		diff int
		why  string
	}
	readings := []other{{m, beside, diff, ""}}
	for i, o := range t.spec.Objectives {
		for x, side := range []*Measurement{m, beside} {
			if i >= len(side.Objectives) {
				continue
			}
			vr := side.Objectives[i]
			if lo, hi := measure.Interval(vr.values, c); passes(o, lo) != passes(o, hi) {
				r := other{m, beside, diff, fmt.Sprintf("%s %s %s by its median, but the median's interval (%.3g-%.3g at %g) reaches the limit",
					short(side.Knobs), [...]string{"misses", "meets"}[b2i(vr.Pass)], vr.Objective, lo, hi, c)}
				if x == 0 {
					r.a = flipped(side, i)
				} else {
					r.b = flipped(side, i)
				}
				readings = append(readings, r)
			}
		}
	}
	if lo, hi := measure.Interval(v.Rounds, c); v.Decided && diff == 0 {
		base := slices.Clone(readings)
		for _, end := range []float64{lo, hi} {
			why := fmt.Sprintf("as good, but the throughput ratio's interval (%.3f-%.3f at %g) reaches %.3f", lo, hi, c, end)
			for _, r := range base {
				r.diff = byMedian(end, w)
				r.why = strings.TrimPrefix(r.why+"; "+why, "; ")
				readings = append(readings, r)
			}
		}
	}
	won, _ := t.decide(m, beside, diff)
	for _, r := range readings[1:] {
		if got, _ := t.decide(r.a, r.b, r.diff); got != won {
			return r.why + ": the decision would turn", true
		}
	}
	return "", false
}

// flipped is x with its objective i read the other way.
func flipped(x *Measurement, i int) *Measurement {
	y := *x
	y.Objectives = slices.Clone(x.Objectives)
	y.Objectives[i].Pass = !y.Objectives[i].Pass
	y.Met = !slices.ContainsFunc(y.Objectives, func(v Verdict) bool { return !v.Pass })
	return &y
}

// pooled is m summarised over an earlier attempt's runs and its own, in
// the order measured, so that the rounds still pair with the best's.
func (t *tuner) pooled(earlier, m *Measurement) *Measurement {
	p := t.summarise(m.Knobs, slices.Concat(earlier.runs, m.runs))
	p.Restarted = earlier.Restarted || m.Restarted
	p.Seconds = earlier.Seconds + m.Seconds
	return p
}

func (t *tuner) topLevel(met bool) float64 {
	top := 0.0
	for _, x := range t.measured {
		if x.Met == met {
			top = max(top, x.Level)
		}
	}
	return top
}

// closer is +1 when a misses the objectives by less than b beyond their spreads, -1 when b does.
func closer(a, b *Measurement, objs []loadtest.Objective) int {
	switch {
	case a.Met || b.Met:
		return 0
	case miss(b, objs, atBest) > reach(a, objs):
		return 1
	case miss(a, objs, atBest) > reach(b, objs):
		return -1
	}
	return 0
}

// reach is how far from the objectives a setting as close as m may be (a
// p99 moves more than 5 % from one repeat to the next).
func reach(m *Measurement, objs []loadtest.Objective) float64 {
	return math.Max(miss(m, objs, atWorst), 1.05*miss(m, objs, atMedian))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
