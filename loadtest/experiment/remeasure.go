package experiment

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// watchInterference finds, or adds, the stats the judgement reads.
func (x *experimentRunner) watchInterference() {
	e, t := x.e, x.opt.Target
	if x.res.Disturbance == nil {
		x.res.Disturbance = &outcome.Disturbance{}
	}
	d := x.res.Disturbance
	d.Interference, d.Steal, d.CPU = "", "", ""
	if e.Stats.URL == "" {
		return
	}
	d.Interference, d.Steal, d.CPU = x.watched(t.Interference, true), x.watched(t.Steal, true), e.Calibrate.CPU
	if d.CPU == "" {
		d.CPU = x.watched(t.ProcessCPU, false)
	}
}

// watched returns the name of the stat watched as s, else adds s (optional if optional).
func (x *experimentRunner) watched(s watch.Stat, optional bool) string {
	if s.Name == "" {
		return ""
	}
	for _, w := range x.res.Stats {
		if w.Name == s.Name || s.Path != "" && w.Path == s.Path || s.Metric != "" && w.Metric == s.Metric {
			return w.Name
		}
	}
	s.Scale = cmp.Or(s.Scale, 1)
	s.Optional = s.Optional || optional
	// Clipped: the stats may be the file's or the target's own slice.
	x.res.Stats = append(slices.Clip(x.res.Stats), s)
	return s.Name
}

// measureRepeat takes repeat rep of a run at clients, again while it is
// disturbed and the budget allows; then it checks the point (quiet).
func (x *experimentRunner) measureRepeat(ctx context.Context, lr *serverRun, clients, rep int) error {
	d := x.e.Disturbance
	for attempt := 1; ; attempt++ {
		start := time.Now()
		p, rp, err := x.measure(ctx, lr, clients, rep, attempt)
		if attempt > 1 || rep > x.e.Load.Repeats { // a claim's sweep beyond the planned is extra too
			x.spent(time.Since(start))
		}
		if err != nil {
			return err
		}
		if !rp.Disturbed {
			return x.quiet(ctx, lr, p)
		}
		where := fmt.Sprintf("run %s: %s, repeat %d", lr.run.Name, outcome.ClientsText(p.Clients), rep)
		switch x.budgetOf().Again(&d, attempt, x.e.stepLength(), p.Measured()) {
		case "max_attempts":
			x.logf("%s: disturbed in all %d attempts (disturbance.max_attempts): left out", where, attempt)
			return nil
		case "max_extra":
			x.logf("%s: disturbed, and no time left for another attempt (disturbance.max_extra %v, %.0f s used): left out",
				where, x.budgetOf().Max, x.res.Disturbance.ExtraSeconds)
			return nil
		case "reserved":
			x.logf("%s: disturbed; the point has %d undisturbed repeats and the last half of disturbance.max_extra is kept for points with none: left out",
				where, len(p.Used()))
			return nil
		}
		x.logf("%s: %s; measuring it again", where, rp.Reason)
		x.res.Disturbance.Remeasured++
		x.total++
		if err := x.settle(ctx, lr, where); err != nil {
			return err
		}
	}
}

func (x *experimentRunner) judgeOf() *measure.Judge {
	if x.judge.Rules == nil {
		x.judge.Rules = &x.e.Disturbance
	}
	return &x.judge
}

func (x *experimentRunner) budgetOf() *measure.Budget {
	if x.budget == nil {
		x.budget = &measure.Budget{Max: x.e.maxExtra()}
	}
	return x.budget
}

func (x *experimentRunner) fits(d time.Duration) bool { return x.budgetOf().Fits(d) }

func (x *experimentRunner) spent(d time.Duration) {
	x.budgetOf().Spend(d)
	x.res.Disturbance.ExtraSeconds = round1(x.budgetOf().Used.Seconds())
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// judgeSpanOf drops a disturbed measurement; an undisturbed one joins a baseline made of steps.
func (x *experimentRunner) judgeSpanOf(rp *outcome.Repeat, srv, gen *measure.Span, in *outcome.Interference) {
	rp.Interference = in
	if in == nil || x.e.Disturbance.Off {
		return // nothing read, or told not to judge
	}
	d := x.res.Disturbance
	if d.Baseline == nil {
		d.Baseline = &measure.Baseline{Source: measure.FromSteps}
	}
	j := x.judgeOf()
	j.Baseline = d.Baseline
	v := j.Judge(srv, gen)
	in.Expected, in.GeneratorExpected = v.Expected, v.GeneratorExpected
	in.StealBaseline, in.GeneratorStealBaseline = v.StealBaseline, v.GeneratorStealBaseline
	if v.Disturbed() {
		rp.Disturbed = true
		rp.Drop(v.Why)
		return
	}
	if d.Baseline.Source == measure.FromSteps {
		d.Baseline.Add(srv, gen)
	}
}

// spans returns the server's and the generator's spans and the interference to record (nil:
// not read). Where the two share cores, the other's CPU on them is not interference.
func (x *experimentRunner) spans(srvCores []int, r *loadtest.Result, server map[string]float64) (srv, gen *measure.Span, in *outcome.Interference) {
	d := x.res.Disturbance
	in = &outcome.Interference{}
	genCores := x.genCores
	if c := r.Cost.Cores; c != nil && len(c.CPUs) > 0 {
		genCores = c.CPUs
	}
	srvCPU := server[d.CPU]
	genCPU, genOK := r.Cost.CPU()
	if v, ok := server[d.Interference]; ok && d.Interference != "" {
		if genOK {
			v -= coreOverlap(genCores, srvCores) * genCPU
		}
		v = round1(max(0, v))
		in.Server = &v
		srv = &measure.Span{Own: srvCPU, Interference: v, Capacity: 100 * float64(len(srvCores))}
	}
	if v, ok := server[d.Steal]; ok && d.Steal != "" {
		in.Steal = ptrTo(round1(v))
		if srv != nil {
			srv.Steal, srv.HasSteal = v, true
		}
	}
	if c := r.Cost.Cores; c != nil && len(c.CPUs) > 0 {
		v := c.Interference
		_, known := server[d.CPU]
		shared := coreOverlap(srvCores, c.CPUs)
		if known {
			v -= shared * srvCPU
		}
		v = round1(max(0, v))
		in.Generator = &v
		// Beside a server whose CPU is not read, it is recorded, not judged.
		if (known || shared == 0) && !x.opt.serverCoresOnly {
			gen = &measure.Span{Own: max(0, c.Busy-c.Interference), Interference: v, Capacity: 100 * float64(len(c.CPUs))}
			if c.Steal != nil {
				gen.Steal, gen.HasSteal = *c.Steal, true
				in.GeneratorSteal = ptrTo(round1(*c.Steal))
			}
		}
	}
	if in.Server == nil && in.Steal == nil && in.Generator == nil {
		in = nil
	}
	return srv, gen, in
}

func (lr *serverRun) cores() []int {
	if lr.proc != nil && lr.proc.Hold.Pinned {
		return lr.proc.Hold.CPUs
	}
	if lr.fleet != nil {
		if cpus := lr.fleet.Pinned(); len(cpus) > 0 {
			return cpus
		}
	}
	return allCPUs()
}

func allCPUs() []int {
	out := make([]int, runtime.NumCPU())
	for i := range out {
		out[i] = i
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

// quiet measures again, once per point, a repeat whose server CPU per request is off the
// others': a re-measure that agrees with the others drops the suspect, one that does not is dropped.
func (x *experimentRunner) quiet(ctx context.Context, lr *serverRun, p *outcome.Point) error {
	cpu := x.res.Disturbance.CPU
	if cpu == "" || x.quietChecked[p] || x.e.Disturbance.Off {
		return nil
	}
	tol, why := x.quietTolerance(cpu)
	if err := x.tieBreak(ctx, lr, p, cpu, tol, why); err != nil {
		return err
	}
	rs := p.Used()
	cpus := cpusOf(rs, cpu)
	i, ref := measure.Suspect(cpus, tol)
	if i < 0 {
		return nil
	}
	sus, c := rs[i], cpus[i]
	if x.quietChecked == nil {
		x.quietChecked = map[*outcome.Point]bool{}
	}
	x.quietChecked[p] = true
	sus.Suspect = true
	sus.Reason = fmt.Sprintf("suspect: server CPU per request %.3f ms against the other repeats' %.3f ms (%+.0f %%; %s)",
		c, ref, 100*(c-ref)/ref, why)
	where := fmt.Sprintf("run %s: %s, repeat %d", lr.run.Name, outcome.ClientsText(p.Clients), sus.Repeat)
	if !x.fits(x.e.stepLength()) || x.budgetOf().Reserved() {
		if n := measure.Agreeing(cpus, i, tol); n >= 2 {
			sus.Drop(fmt.Sprintf("%s; no time left to measure it again: left out, the point stands on its %d other repeats, which agree", sus.Reason, n))
			x.logf("%s: %s", where, sus.Reason)
			refresh(p, x.e.Load)
			return x.writeSweep(lr)
		}
		sus.Reason += "; no time left to measure it again: it stands"
		sus.Unresolved = true
		x.logf("%s: %s", where, sus.Reason)
		return nil
	}
	x.logf("%s: %s; measuring it again", where, sus.Reason)
	x.res.Disturbance.Remeasured++
	x.total++
	attempt := 0
	for _, rp := range p.Repeats {
		if rp.Repeat == sus.Repeat {
			attempt = max(attempt, rp.Attempt)
		}
	}
	start := time.Now()
	_, again, err := x.measure(ctx, lr, p.Clients, sus.Repeat, attempt+1)
	x.spent(time.Since(start))
	if err != nil {
		return err
	}
	a, ok := cpuPerRequest(again, cpu)
	switch {
	case again.Disturbed:
		sus.Reason += "; its re-measure was disturbed: it stands"
	case !ok:
		sus.Reason += "; its re-measure has no CPU per request: it stands"
		again.Drop("re-measure of a suspect repeat, without a CPU per request")
	case measure.Agrees(a, ref, tol):
		sus.Drop(fmt.Sprintf("%s; its re-measure agreed with the others (%.3f ms): dropped", sus.Reason, a))
	default:
		again.Drop(fmt.Sprintf("re-measure of a suspect repeat: %.3f ms agreed with neither it nor the others (%.3f ms): the suspect stands", a, ref))
	}
	x.logf("%s: %s", where, strings.TrimPrefix(sus.Reason, "suspect: "))
	refresh(p, x.e.Load)
	return x.writeSweep(lr)
}

// tieBreak measures a third repeat, in a left-out slot, when the point's
// two used repeats disagree on the server's CPU per request.
func (x *experimentRunner) tieBreak(ctx context.Context, lr *serverRun, p *outcome.Point, cpu string, tol float64, why string) error {
	rs := p.Used()
	if len(rs) != 2 || x.tieBroken[p] || !x.fits(x.e.stepLength()) || x.budgetOf().Reserved() {
		return nil
	}
	a, okA := cpuPerRequest(rs[0], cpu)
	b, okB := cpuPerRequest(rs[1], cpu)
	if !okA || !okB || min(a, b) <= 0 || measure.Agrees(max(a, b), min(a, b), tol) {
		return nil
	}
	last, used := false, map[int]bool{}
	for _, rp := range rs {
		used[rp.Repeat] = true
		last = last || rp.Repeat == x.e.Load.Repeats
	}
	slot, attempt := 0, 0
	for _, rp := range p.Repeats {
		if rp.Repeat > 0 && !used[rp.Repeat] && (slot == 0 || rp.Repeat == slot) {
			slot, attempt = rp.Repeat, max(attempt, rp.Attempt)
		}
	}
	if !last || slot == 0 {
		return nil
	}
	if x.tieBroken == nil {
		x.tieBroken = map[*outcome.Point]bool{}
	}
	x.tieBroken[p] = true
	x.logf("run %s: %s: its two repeats read %.3f and %.3f ms of server CPU a request, more than %s apart: measuring repeat %d (left out) again, to know which is off",
		lr.run.Name, outcome.ClientsText(p.Clients), a, b, why, slot)
	x.res.Disturbance.Remeasured++
	x.total++
	start := time.Now()
	_, _, err := x.measure(ctx, lr, p.Clients, slot, attempt+1)
	x.spent(time.Since(start))
	return err
}

// quietTolerance is the slow rule's tolerance, and what set it.
func (x *experimentRunner) quietTolerance(cpu string) (float64, string) {
	var settings [][]float64
	for _, r := range x.res.Runs {
		for _, p := range r.Points {
			settings = append(settings, cpusOf(p.Used(), cpu))
		}
	}
	rules := &x.e.Disturbance
	file := fmt.Sprintf("disturbance.cpu_per_request %g %%", rules.CPUPerRequest)
	noise, ok := measure.Noise(measure.Deviations(settings))
	if tol, fromNoise := rules.Tolerance(noise); ok && fromNoise {
		return tol, fmt.Sprintf("%d x the median deviation of this run's repeats, %.1f %%, above %s", measure.NoiseTimes, noise, file)
	}
	return rules.CPUPerRequest, file
}

// cpusOf is each repeat's CPU per request in ms, NaN where not read.
func cpusOf(rs []*outcome.Repeat, cpu string) []float64 {
	out := make([]float64, len(rs))
	for i, rp := range rs {
		out[i] = math.NaN()
		if v, ok := cpuPerRequest(rp, cpu); ok {
			out[i] = v
		}
	}
	return out
}

// cpuPerRequest is a measurement's server CPU per request in ms.
func cpuPerRequest(rp *outcome.Repeat, cpu string) (float64, bool) {
	v, ok := rp.Server[cpu]
	if !ok || rp.Total.Throughput <= 0 {
		return 0, false
	}
	return v / 100 / rp.Total.Throughput * 1000, true
}

// unjudgedNote says when no step could be judged for lack of readings.
func unjudgedNote(res *outcome.Result) string {
	d := res.Disturbance
	if d == nil || d.Interference == "" || len(res.Tunes) > 0 { // a tuner judges its own steps
		return ""
	}
	for _, r := range res.Runs {
		for _, p := range r.Points {
			for _, rp := range p.Repeats {
				if rp.Interference != nil {
					return ""
				}
			}
		}
	}
	return fmt.Sprintf("the server gave no %q reading (not available where it runs): no step was judged disturbed", d.Interference)
}

// maxExtra is the file's max_extra, or a quarter of the planned steps'.
func (e *Experiment) maxExtra() time.Duration {
	if m := time.Duration(e.Disturbance.MaxExtra); m > 0 {
		return m
	}
	n := len(e.Runs) * len(e.Load.Clients) * max(e.Load.Repeats, 1)
	return time.Duration(n) * e.stepLength() / 4
}

// stepLength is the longest of the runs' planned step, warm-up included.
func (e *Experiment) stepLength() time.Duration {
	d := e.Load.Warmup + e.Load.Duration
	for _, r := range e.Runs {
		s := e.runSettings(r)
		d = max(d, s.Warmup+s.Duration)
	}
	return d
}

// coreOverlap is the share of a's cores that are also b's (0..1).
func coreOverlap(a, b []int) float64 {
	if len(a) == 0 {
		return 0
	}
	shared := slices.DeleteFunc(slices.Clone(a), func(c int) bool { return !slices.Contains(b, c) })
	return float64(len(shared)) / float64(len(a))
}
