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

// Result is a whole tuning, its steps and its winner.
type Result struct {
	Objectives []string    `json:"objectives"`
	Goal       Goal        `json:"goal"`
	Work       string      `json:"work,omitempty"`
	Start      watch.Knobs `json:"start"`
	Steps      []Step      `json:"steps"`
	Winner     watch.Knobs `json:"winner"`
	WinnerMet  bool        `json:"winner_met"`
	Limit      Diagnosis   `json:"limit"`
	// Stopped says why the tuner stopped; Outcome in one word: met,
	// capacity, application, invalid, budget or unmet.
	Stopped string `json:"stopped"`
	Outcome string `json:"outcome"`
	Rules   Rules  `json:"rules"`
	// Measurements counts the settings measured, Runs the load runs.
	Measurements int     `json:"measurements"`
	Runs         int     `json:"runs"`
	Seconds      float64 `json:"seconds"`
}

// File is what "loadtest tune -out" writes.
type File struct {
	Tool string            `json:"tool"` // "loadtest tune"
	At   time.Time         `json:"at"`
	Load loadtest.Settings `json:"load"`
	*Result
}

// Rules are the article's two rules checked against the winner.
type Rules struct {
	WorkersPool      string `json:"workers_pool"`
	WorkersPoolHolds bool   `json:"workers_pool_holds"`
	// MinMax says whether min = max mattered, or why it was not checked.
	MinMax     string       `json:"min_max"`
	MinMaxStep *Measurement `json:"min_max_step,omitempty"`
}

// Run tunes the target's knobs under spec and leaves it set to the winner;
// an error after the first step comes with what was measured.
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
	res := &Result{Goal: t.spec.Goal, Work: t.work.Name, Start: cur, Objectives: strings.Split(t.spec.objectives(), ",")}
	res.Stopped, res.Outcome, err = t.loop(ctx, cur, b2i(t.spec.CheckMinMax))
	if t.best != nil {
		t.conclude(ctx, res)
	}
	res.Steps = t.steps
	res.Measurements = t.measurements
	if res.Rules.MinMaxStep != nil {
		res.Measurements++
	}
	res.Runs = res.Measurements * t.spec.Repeats
	res.Seconds = round(time.Since(t.started).Seconds(), 1)
	return res, err
}

// loop measures settings until a stop, returning why and the outcome.
func (t *tuner) loop(ctx context.Context, cur watch.Knobs, reserve int) (string, string, error) {
	for {
		if ok, why := t.budgetLeft(reserve); !ok {
			return why, "budget", nil
		}
		m, beside, err := t.take(ctx, cur)
		if err != nil {
			return "error: " + err.Error(), "error", err
		}
		t.taken++
		st := Step{N: t.taken, Measurement: *m, Beside: beside}
		if t.best != nil {
			st.Best = t.best.Knobs
		}
		d, upset := t.upset(m, beside)
		attempts := t.retried[m.Knobs] < t.spec.Rules.MaxAttempts-1
		if !upset || !attempts {
			m, beside = t.pool(m, beside)
			st.Measurement, st.Beside = *m, beside
			if why, ok := t.undecided(m, beside); ok && attempts {
				d, upset, t.carry = Diagnosis{Limit: Undecided, Evidence: why}, true, [2]*Measurement{beside, m}
			}
		}
		if upset && attempts {
			// A disturbed attempt is kept in the step and left out of
			// every comparison; an undecided one is pooled with the next.
			t.retried[m.Knobs]++
			k := m.Knobs
			st.Diagnosis, st.Compared, st.Decision, st.Why, st.Next = d, "left out: disturbed", "measure it again", d.Evidence, &k
			if d.Limit == Undecided {
				st.Compared, st.Decision = "undecided: "+d.Evidence, "measure the pair again and pool the rounds"
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
		won, lost := true, false
		st.Compared, m.Level = "the first step", 1
		if beside != nil {
			won, lost, st.Compared = t.versus(m, beside)
			if upset {
				st.Compared += fmt.Sprintf(" (kept at the last of %d attempts: %s)", t.spec.Rules.MaxAttempts, d.Evidence)
			}
		}
		st.Level = m.Level
		if won {
			t.best = m
		}
		d = t.spec.Diagnose(m, t.lower(m.Knobs))
		st.Diagnosis, st.Best = d, t.best.Knobs
		next, stop, outcome := t.next(m, d, lost)
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

// pool returns m and the best beside it pooled with the attempt carried
// over from an undecided step of the same pair, and clears the carry.
func (t *tuner) pool(m, beside *Measurement) (*Measurement, *Measurement) {
	c := t.carry
	t.carry = [2]*Measurement{}
	if beside == nil || c[1] == nil || c[0].Knobs != beside.Knobs || c[1].Knobs != m.Knobs {
		return m, beside
	}
	return t.pooled(c[1], m), t.pooled(c[0], beside)
}

func (t *tuner) record(st Step) {
	t.steps = append(t.steps, st)
	t.log(st)
	if t.opt.OnStep != nil {
		t.opt.OnStep(st)
	}
}

// next chooses what follows step m (lost: the best beat it).
func (t *tuner) next(m *Measurement, d Diagnosis, lost bool) (Proposal, bool, string) {
	switch d.Limit {
	case Generator:
		return Proposal{Why: "stop: " + d.Evidence}, true, "invalid"
	case Application:
		return Proposal{Why: "stop: the limit is the application, not a knob: " + d.Evidence}, true, "application"
	}
	// Fewer of a setting the best beat is no way to the best.
	best := t.best
	if shrinks := d.Limit == Capacity || d.Limit == Load; !shrinks || !lost {
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
		if !t.visited(n) && t.knobs.outside(n) == "" {
			return Proposal{Knobs: n, Why: fmt.Sprintf("check a neighbour of the best, %s, before calling it the best", short(best.Knobs))}, false, ""
		}
	}
	return t.stopAt(best)
}

// halve reports whether nothing smaller than k in every knob was measured.
func (t *tuner) halve(k watch.Knobs) bool {
	for _, m := range t.measured {
		if !slices.ContainsFunc(t.knobs, func(kn knob) bool { return *kn.Of(&m.Knobs) >= *kn.Of(&k) }) {
			return false
		}
	}
	return true
}

func (t *tuner) fresh(p Proposal, ok bool) (Proposal, bool) {
	if !ok || t.knobs.outside(p.Knobs) != "" || t.visited(p.Knobs) {
		return Proposal{}, false
	}
	return p, true
}

func (t *tuner) stopAt(best *Measurement) (Proposal, bool, string) {
	bd := t.spec.Diagnose(best, t.lower(best.Knobs))
	switch {
	case !best.Met:
		return Proposal{Why: fmt.Sprintf("stop: no setting within the bounds met %s; the closest to it, %s (the best side by side), is limited by %s: %s", t.spec.objectives(), short(best.Knobs), bd.Limit, bd.Evidence)}, true, "unmet"
	case bd.Limit == Capacity:
		return Proposal{Why: fmt.Sprintf("stop: %s meets %s and no neighbour beat it side by side; its limit is the hardware: %s", short(best.Knobs), t.spec.objectives(), bd.Evidence)}, true, "capacity"
	}
	return Proposal{Why: fmt.Sprintf("stop: %s meets %s and no neighbour beat it side by side (limit: %s)", short(best.Knobs), t.spec.objectives(), bd.Limit)}, true, "met"
}

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
	limit := string(st.Diagnosis.Limit)
	if d := st.Diagnosis; d.Reading != "" { // an undecided step names no reading
		limit += fmt.Sprintf(" (%s %.2f %s)", d.Reading, d.Value, d.Unit)
	}
	t.opt.Logf("step %d: %s%s: %.0f/s (%.0f-%.0f), %s %.2f ms (%.2f-%.2f), %s the objectives; limit: %s; %s; best %s; next: %s",
		st.N, short(m.Knobs), restarted, m.Throughput.Median, m.Throughput.Min, m.Throughput.Max, m.LatencyName, m.Latency.Median, m.Latency.Min, m.Latency.Max,
		metText(m.Met), limit, st.Compared, best, nextText(st))
	t.opt.Logf("        why: %s", st.Why)
}

func nextText(st Step) string {
	if st.Next == nil {
		return st.Decision
	}
	return fmt.Sprintf("%s (%s)", short(*st.Next), st.Decision)
}
