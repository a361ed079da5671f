package tune

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// Result is a whole tuning: every step with its evidence, the winner,
// what limits it, why the tuner stopped and the article's two rules
// checked against the winner.
type Result struct {
	Objectives []string    `json:"objectives"`
	Goal       Goal        `json:"goal"`
	Work       string      `json:"work,omitempty"`
	Start      watch.Knobs `json:"start"`
	Steps      []Step      `json:"steps"`
	Winner     watch.Knobs `json:"winner"`
	// WinnerMet says whether the winner meets the objectives; Limit is
	// what limits the winner.
	WinnerMet bool      `json:"winner_met"`
	Limit     Diagnosis `json:"limit"`
	// Stopped says why the tuner stopped; Outcome in one word: met,
	// capacity, application, invalid, budget or unmet.
	Stopped string `json:"stopped"`
	Outcome string `json:"outcome"`
	Rules   Rules  `json:"rules"`
	// Confirm is the side-by-side check before the stop (Spec.Confirm),
	// absent when it did not run (Confirm off, the goal of resources, no
	// winner that met the objectives, or no other setting that met them).
	// Earlier are the checks before it that kept the top: the tuning went
	// on from each, above it, while budget was left.
	Confirm *Confirmation   `json:"confirm,omitempty"`
	Earlier []*Confirmation `json:"earlier_confirms,omitempty"`
	// Measurements counts the settings measured (Steps, the side-by-side
	// check's two and the min = max check); Runs the load runs (each
	// Repeats long).
	Measurements int     `json:"measurements"`
	Runs         int     `json:"runs"`
	Seconds      float64 `json:"seconds"`
}

// File is what "loadtest tune -out" writes: the load each setting was
// measured with and the whole tuning.
type File struct {
	Tool string            `json:"tool"` // "loadtest tune"
	At   time.Time         `json:"at"`
	Load loadtest.Settings `json:"load"`
	*Result
}

// Rules are the article's two rules checked against the winner.
type Rules struct {
	// WorkersPool: the article's workers = pool + α (a few); Holds says
	// whether the winner keeps it.
	WorkersPool      string `json:"workers_pool"`
	WorkersPoolHolds bool   `json:"workers_pool_holds"`
	// MinMax: whether min = max mattered (the winner measured again with
	// the pool's minimum at 1), or why it was not checked; MinMaxStep is
	// that measurement.
	MinMax     string       `json:"min_max"`
	MinMaxStep *Measurement `json:"min_max_step,omitempty"`
}

// Run tunes the target's knobs under spec: from spec.Start it measures a
// setting, names its limit (Diagnose), moves to the setting the limit
// points at (or back to the best so far, or to an unmeasured neighbour of
// the best), and stops when the objectives are met and no neighbour beats
// the best beyond the noise, when the limit is the generator, the
// application or the CPU (with nothing smaller as good), or when the
// budget is spent. It leaves the target set to the winner. An error
// before the first step (the spec, the knobs) returns no result; one
// after returns what was measured with the error.
func Run(ctx context.Context, spec Spec, target watch.Target, opt Options) (*Result, error) {
	t, err := newTuner(spec, target, opt)
	if err != nil {
		return nil, err
	}
	t.started = time.Now()
	cur := t.spec.Start
	if cur == (watch.Knobs{}) {
		if cur, err = t.m.Get(ctx); err != nil {
			return nil, fmt.Errorf("read the knobs in force: %w", err)
		}
	}
	res := &Result{Goal: t.spec.Goal, Work: t.work.Name, Start: cur, Objectives: strings.Split(t.objectives(), ",")}
	reserve := 0
	if t.spec.CheckMinMax {
		reserve = 1
	}
	stopped, outcome, err := t.loop(ctx, cur, reserve)
	confirmed := 0
	if err == nil {
		stopped, outcome, confirmed, err = t.settle(ctx, res, stopped, outcome, reserve)
	}
	res.Stopped, res.Outcome = stopped, outcome
	if len(t.measured) > 0 {
		t.conclude(ctx, res)
	}
	res.Steps = t.steps
	res.Measurements = t.taken + confirmed
	if res.Rules.MinMaxStep != nil {
		res.Measurements++
	}
	res.Runs = res.Measurements * t.spec.Repeats
	res.Seconds = round(time.Since(t.started).Seconds(), 1)
	return res, err
}

// settle checks the best against the top side by side after the loop
// stopped (confirm) and, when the top won and budget is left, goes on
// stepping from above it (onward) and checks again at the next stop. It
// returns the last stop, its outcome and the checks' measurements.
func (t *tuner) settle(ctx context.Context, res *Result, stopped, outcome string, reserve int) (string, string, int, error) {
	confirmed := 0
	for len(t.measured) > 0 {
		c, n, moved := t.confirm(ctx, outcome)
		confirmed += n
		if c == nil {
			break
		}
		if res.Confirm != nil {
			res.Earlier = append(res.Earlier, res.Confirm)
		}
		res.Confirm = c
		if !moved {
			if t.winner != nil {
				stopped += "; then " + c.Why
			}
			break
		}
		// The top won: go on above it while budget is left, as from a
		// step whose readings pointed there.
		next, ok := t.onward(t.winner.Knobs)
		left, _ := t.budgetLeft(reserve)
		if !ok || !left || outcome == "budget" || ctx.Err() != nil {
			stopped += "; then " + c.Why
			break
		}
		t.opt.Logf("going on from %s, which won side by side: %s next", short(t.winner.Knobs), short(next))
		t.winner = nil
		if t.opt.OnResume != nil {
			t.opt.OnResume(next, t.taken+1)
		}
		var err error
		if stopped, outcome, err = t.loop(ctx, next, reserve); err != nil {
			return stopped, outcome, confirmed, err
		}
	}
	return stopped, outcome, confirmed, nil
}

// loop measures settings until a stop, returning why and the outcome.
func (t *tuner) loop(ctx context.Context, cur watch.Knobs, reserve int) (string, string, error) {
	for {
		if ok, why := t.budgetLeft(reserve); !ok { // a budget of time spent in the step
			return why, "budget", nil
		}
		prevBest := t.best()
		m, err := t.measure(ctx, cur)
		if err != nil {
			return "error: " + err.Error(), "error", err
		}
		t.taken++
		d, ok := t.leftOut(m)
		if ok && t.retried[m.Knobs] < t.spec.Rules.MaxAttempts-1 {
			// Measured again, up to Rules.MaxAttempts in all; the disturbed
			// figures are kept in the step and left out of every
			// comparison.
			t.retried[m.Knobs]++
			k := m.Knobs
			st := Step{N: t.taken, Measurement: *m, Diagnosis: d, Compared: "left out: disturbed", Decision: "measure it again", Why: d.Evidence, Next: &k}
			if prevBest != nil {
				st.Best = prevBest.Knobs
			}
			if ok, why := t.budgetLeft(reserve); !ok {
				st.Decision, st.Next = fmt.Sprintf("stop: %s (it would have been measured again)", why), nil
				t.record(st)
				return st.Decision, "budget", nil
			}
			t.record(st)
			continue
		}
		t.measured = append(t.measured, m)
		d = t.spec.Diagnose(m, t.lower(m.Knobs))
		st := Step{N: t.taken, Measurement: *m, Diagnosis: d, Compared: compare(m, prevBest)}
		best := t.best()
		st.Best = best.Knobs
		next, stop, outcome := t.next(m, d, best)
		if ok, why := t.budgetLeft(reserve); !ok && !stop {
			next.Why = fmt.Sprintf("stop: %s (the readings pointed at %s: %s)", why, short(next.Knobs), next.Why)
			stop, outcome = true, "budget"
		}
		st.Decision, st.Why = next.Why, d.Evidence
		if !stop {
			k := next.Knobs
			st.Next = &k
		}
		t.record(st)
		if stop {
			return next.Why, outcome, nil
		}
		cur = next.Knobs
	}
}

// record keeps a step, prints it and tells OnStep.
func (t *tuner) record(st Step) {
	t.steps = append(t.steps, st)
	t.log(st)
	if t.opt.OnStep != nil {
		t.opt.OnStep(st)
	}
}

// chosen is the tuning's winner: the best of the steps, unless the
// side-by-side check kept another.
func (t *tuner) chosen() *Measurement {
	if t.winner != nil {
		return t.winner
	}
	return t.best()
}

// best is the best setting measured so far, nil before any; a best the
// side-by-side check beat is not one.
func (t *tuner) best() *Measurement {
	ms := t.measured
	if len(t.beaten) > 0 {
		ms = slices.DeleteFunc(slices.Clone(ms), func(m *Measurement) bool { return t.beaten[m.Knobs] })
	}
	if len(ms) == 0 {
		return nil
	}
	return pick(ms, t.spec.Goal, t.spec.Objectives)
}

// next chooses what follows step m (diagnosed d; best the best so far):
// a stop (with its reason and outcome) for the generator and the
// application; else the setting the readings point at if unmeasured, else
// the one the best's readings point at, else an unmeasured neighbour of
// the best; with none left, a stop saying what limits the best.
func (t *tuner) next(m *Measurement, d Diagnosis, best *Measurement) (Proposal, bool, string) {
	switch d.Limit {
	case Generator:
		return Proposal{Why: "stop: " + d.Evidence}, true, "invalid"
	case Application:
		return Proposal{Why: "stop: the limit is the application, not a knob: " + d.Evidence}, true, "application"
	}
	// A setting worse than the best beyond the noise has nothing to
	// trim: fewer of it is no way to the best.
	shrinks := d.Limit == Capacity || d.Limit == Load
	if best == m || !shrinks || !more(best, m) {
		if p, ok := t.fresh(t.propose(m, d, t.lower(m.Knobs), t.halve(m.Knobs))); ok {
			return p, false, ""
		}
	}
	if best != m {
		bd := t.spec.Diagnose(best, t.lower(best.Knobs))
		if p, ok := t.fresh(t.propose(best, bd, t.lower(best.Knobs), t.halve(best.Knobs))); ok {
			p.Why = fmt.Sprintf("from the best so far, %s: %s", short(best.Knobs), p.Why)
			return p, false, ""
		}
	}
	for _, n := range t.knobs.neighbours(best.Knobs) {
		if t.visited(n) == nil && t.knobs.outside(n) == "" {
			return Proposal{Knobs: n, Why: fmt.Sprintf("check a neighbour of the best, %s, before calling it the best", short(best.Knobs))}, false, ""
		}
	}
	return t.stopAt(best)
}

// halve reports whether no setting smaller than k in every knob was
// measured: a full CPU then halves them.
func (t *tuner) halve(k watch.Knobs) bool {
	for _, m := range t.measured {
		if !slices.ContainsFunc(t.knobs, func(kn knob) bool { return *kn.Of(&m.Knobs) >= *kn.Of(&k) }) {
			return false
		}
	}
	return true
}

// fresh keeps a proposal that is within the bounds and not yet measured.
func (t *tuner) fresh(p Proposal, ok bool) (Proposal, bool) {
	if !ok || t.knobs.outside(p.Knobs) != "" || t.visited(p.Knobs) != nil {
		return Proposal{}, false
	}
	return p, true
}

// stopAt is the stop once nothing is left to measure around best.
func (t *tuner) stopAt(best *Measurement) (Proposal, bool, string) {
	bd := t.spec.Diagnose(best, t.lower(best.Knobs))
	switch {
	case !best.Met:
		return Proposal{Why: fmt.Sprintf("stop: no setting within the bounds met %s; the best of those closest to it (within the closest's spread), %s, is limited by %s: %s", t.objectives(), short(best.Knobs), bd.Limit, bd.Evidence)}, true, "unmet"
	case bd.Limit == Capacity:
		return Proposal{Why: fmt.Sprintf("stop: %s meets %s and no neighbour beats it beyond the noise; its limit is the hardware: %s", short(best.Knobs), t.objectives(), bd.Evidence)}, true, "capacity"
	}
	return Proposal{Why: fmt.Sprintf("stop: %s meets %s and no neighbour beats it beyond the noise (limit: %s)", short(best.Knobs), t.objectives(), bd.Limit)}, true, "met"
}

func (t *tuner) objectives() string {
	var s []string
	for _, o := range t.spec.Objectives {
		s = append(s, o.Text)
	}
	return strings.Join(s, ",")
}

// compare says how m stands against the best before it (nil: the first).
func compare(m, best *Measurement) string {
	if best == nil {
		return "the first step"
	}
	a, b := m.Throughput, best.Throughput
	rng := fmt.Sprintf("%.0f-%.0f/s vs %.0f-%.0f/s", a.Min, a.Max, b.Min, b.Max)
	switch {
	case m.Met && !best.Met:
		return fmt.Sprintf("meets the objectives, which %s did not", short(best.Knobs))
	case !m.Met && best.Met:
		return fmt.Sprintf("misses the objectives, which %s met", short(best.Knobs))
	case more(m, best):
		return fmt.Sprintf("more throughput than %s beyond the noise (%s)", short(best.Knobs), rng)
	case more(best, m):
		return fmt.Sprintf("less throughput than %s beyond the noise (%s)", short(best.Knobs), rng)
	}
	return fmt.Sprintf("within the noise of %s (%s)", short(best.Knobs), rng)
}

// log prints a step's line.
func (t *tuner) log(st Step) {
	m := st.Measurement
	best := "none yet"
	if st.Best != (watch.Knobs{}) {
		best = short(st.Best)
	}
	restarted := ""
	if m.Restarted {
		restarted = " (set by starting the target again)"
	}
	t.opt.Logf("step %d: %s%s: %.0f/s (%.0f-%.0f), %s %.2f ms (%.2f-%.2f), %s the objectives; limit: %s (%s %.2f %s); %s; best %s; next: %s",
		st.N, short(m.Knobs), restarted, m.Throughput.Median, m.Throughput.Min, m.Throughput.Max, m.LatencyName, m.Latency.Median, m.Latency.Min, m.Latency.Max,
		metText(m.Met), st.Diagnosis.Limit, st.Diagnosis.Reading, st.Diagnosis.Value, st.Diagnosis.Unit, st.Compared, best, nextText(st))
	t.opt.Logf("        why: %s", st.Why)
}

func nextText(st Step) string {
	if st.Next == nil {
		return st.Decision
	}
	return fmt.Sprintf("%s (%s)", short(*st.Next), st.Decision)
}
