package tune

import (
	"context"
	"fmt"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// FewMore is the least α the article's "workers = pool + α" allows.
const FewMore = 3

// conclude fills in the winner and leaves the target set to it.
func (t *tuner) conclude(ctx context.Context, res *Result) {
	best := t.best
	res.Winner, res.WinnerMet = best.Knobs, best.Met
	res.Limit = t.spec.Diagnose(best, t.lower(best.Knobs))
	res.Rules.WorkersPool, res.Rules.WorkersPoolHolds = workersPool(best.Knobs)
	t.opt.Logf("winner: %s (%s the objectives, %.0f/s, %s %.2f ms); its limit: %s: %s", knobsText(best.Knobs), metText(best.Met),
		best.Throughput.Median, best.LatencyName, best.Latency.Median, res.Limit.Limit, res.Limit.Evidence)
	t.opt.Logf("rule workers = pool + a few: %s", res.Rules.WorkersPool)
	res.Rules.MinMax = "not checked (tune -check-min-max measures the winner with the pool's minimum at 1)"
	if t.spec.CheckMinMax && ctx.Err() == nil && res.Outcome != "error" && res.Outcome != "invalid" {
		res.Rules.MinMax, res.Rules.MinMaxStep = t.minMax(ctx, best)
		t.opt.Logf("rule min = max: %s", res.Rules.MinMax)
	}
	if ctx.Err() == nil {
		// A target that cannot change its knobs live would restart.
		cur, err := t.m.Get(ctx)
		if err != nil || cur.Workers != best.Knobs.Workers || cur.Pool != best.Knobs.Pool || cur.Min() != best.Knobs.Min() {
			_, err = t.m.Set(ctx, best.Knobs)
		}
		if err == nil {
			t.opt.Logf("the target keeps running with %s (%s%s)", knobsText(best.Knobs), t.spec.Admin, t.target.Tuning.KnobsPath)
		} else {
			t.opt.Logf("could not leave the target at the winner: %v", err)
		}
	}
}

func workersPool(k watch.Knobs) (string, bool) {
	alpha := k.Workers - k.Pool
	few := max(FewMore, k.Pool/4)
	switch {
	case alpha < 0:
		return fmt.Sprintf("does not hold: %d workers for %d connections (fewer workers than connections: %d can never be used)", k.Workers, k.Pool, -alpha), false
	case alpha <= few:
		return fmt.Sprintf("holds: %d workers = %d connections + %d", k.Workers, k.Pool, alpha), true
	}
	return fmt.Sprintf("does not hold: %d workers = %d connections + %d, more than a few (%d)", k.Workers, k.Pool, alpha, few), false
}

func (t *tuner) minMax(ctx context.Context, best *Measurement) (string, *Measurement) {
	k := best.Knobs
	k.PoolMin = 1
	if k.Pool == 1 {
		return "not checked: a pool of 1 has no minimum below its maximum", nil
	}
	reps := t.spec.Repeats
	t.spec.Repeats = 1
	defer func() { t.spec.Repeats = reps }()
	var runs []*loadtest.Result
	var secs float64
	for range reps { // each from a pool of 1, which the next Set grows from again
		if _, err := t.m.Set(ctx, watch.Knobs{Workers: k.Workers, Pool: 1}); err != nil {
			return "not checked: " + err.Error(), nil
		}
		m, err := t.measure(ctx, k)
		if err != nil {
			return "not checked: " + err.Error(), nil
		}
		runs, secs = append(runs, m.runs...), secs+m.Seconds
	}
	m := t.summarise(k, runs)
	m.Seconds = secs
	rng := fmt.Sprintf("%.0f-%.0f/s and %s %.2f-%.2f ms with min = max, %.0f-%.0f/s and %.2f-%.2f ms with min 1",
		best.Throughput.Min, best.Throughput.Max, best.LatencyName, best.Latency.Min, best.Latency.Max,
		m.Throughput.Min, m.Throughput.Max, m.Latency.Min, m.Latency.Max)
	if more(best, m) || best.Latency.Max < m.Latency.Min {
		return "mattered: " + rng, m
	}
	return "did not matter here, within the noise: " + rng, m
}

func metText(met bool) string { return [...]string{"misses", "meets"}[b2i(met)] }
