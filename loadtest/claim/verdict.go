package claim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"bbslab/loadtest/measure"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/text"
	"bbslab/loadtest/watch"
)

// uslVerdict fits the Universal Scalability Law to a run's sweep; "" if it cannot.
func uslVerdict(r *outcome.Run) string {
	var clients []int
	var x []float64
	for _, p := range r.Points {
		if p.Result != nil && p.Result.Total.Throughput > 0 {
			clients, x = append(clients, p.Clients), append(x, p.Result.Total.Throughput)
		}
	}
	if t := text.USLText(clients, x); t != "" {
		return r.Name + ": " + t + "."
	}
	return ""
}

// Verdicts computes an experiment's plain-language findings: each run's peak and
// saturation, each run against the first, profile shares and disk's verdict.
func Verdicts(res *outcome.Result, disk *watch.DiskTable) []string {
	var out []string
	var base *outcome.Run
	readings := machineFree(res)
	runs := res.MeasuredOnly().Runs
	for i, r := range runs {
		switch {
		case len(res.Runs[i].Points) == 0 && len(res.Tunes) > 0 && r.Error == "":
			continue // tuned, not swept: the Tuning section says what was measured
		case len(res.Runs[i].Points) == 0:
			out = append(out, fmt.Sprintf("%s: no measurements (%s).", r.Name, cmp.Or(r.Error, "none taken")))
			continue
		case len(r.Points) == 0:
			out = append(out, fmt.Sprintf("%s: no point could be measured undisturbed (the machine was busy).", r.Name))
			continue
		}
		out = append(out, runVerdict(r))
		if v := uslVerdict(r); v != "" {
			out = append(out, v)
		}
		if base == nil {
			base = r
			continue
		}
		out = append(out, compareVerdict(base, r, readings, noiseRule(res)))
	}
	for _, verdict := range []func(*outcome.Run) string{coldVerdict, sloVerdict} {
		for _, r := range runs {
			if v := verdict(r); v != "" {
				out = append(out, v)
			}
		}
	}
	for _, r := range runs {
		for _, g := range outcome.ProfileGroups(r.Profiles) {
			if len(g.Buckets) == 0 {
				continue
			}
			var parts []string
			for _, b := range g.Buckets {
				parts = append(parts, outcome.SpreadText(b.Share.Scaled(100), "%.0f", " %")+" "+b.Name)
			}
			out = append(out, fmt.Sprintf("%s (%s profile%s): of the samples in focus (profile.focus), %s.", r.Name, g.Kind, g.Where(), strings.Join(parts, ", ")))
		}
		for _, pt := range r.Points {
			if pt.Result.Cost.Bottleneck {
				out = append(out, fmt.Sprintf("%s at %s: the load generator itself may have been the bottleneck (CPU %s %% of a core).", r.Name, outcome.ClientsText(pt.Clients), pt.Result.Cost.CPUText("%.0f")))
			}
			if e := pt.Result.Total.Errors; e > 0 {
				out = append(out, fmt.Sprintf("%s at %s: %d errors (%s).", r.Name, outcome.ClientsText(pt.Clients), e, text.ErrorKindsText(pt.Result.Total.ErrorKinds)))
			}
		}
	}
	if disk != nil && disk.Verdict != "" {
		out = append(out, disk.Verdict)
	}
	if res.Error != "" {
		out = append(out, "The experiment stopped early, so the runs after the failure are missing: "+res.Error)
	}
	return out
}

// machineFree returns the readings less those of other work on the
// machine: they describe the machine, not the runs.
func machineFree(res *outcome.Result) []watch.Stat {
	d := res.Disturbance
	if d == nil {
		return res.Stats
	}
	var out []watch.Stat
	for _, s := range res.Stats {
		if s.Name != d.Interference && s.Name != d.Steal || s.Name == "" {
			out = append(out, s)
		}
	}
	return out
}

// runVerdict describes one run's curve, each figure its point's median and range.
func runVerdict(r *outcome.Run) string {
	peak, at := peakPoint(r)
	first, last := r.Points[0], r.Points[len(r.Points)-1]
	pt := peak.Throughput()
	s := fmt.Sprintf("%s: peak %s at %s", r.Name, outcome.SpreadText(pt, "%.0f", "/s"), outcome.ClientsText(at))
	reaches := func(p *outcome.Point) bool { return p.Throughput().Median >= 0.9*pt.Median }
	if knee := slices.IndexFunc(r.Points, reaches); knee >= 0 && r.Points[knee].Clients < at {
		s += fmt.Sprintf(" (90 %% of it already at %s)", outcome.ClientsText(r.Points[knee].Clients))
	}
	if lt := last.Throughput(); last != peak && lt.Median < 0.9*pt.Median {
		s += fmt.Sprintf("; throughput fell to %s at %s", outcome.SpreadText(lt, "%.0f", "/s"), outcome.ClientsText(last.Clients))
	}
	if len(r.Points) > 1 {
		fm, _ := first.Spread("", "mean_ms")
		lm, _ := last.Spread("", "mean_ms")
		fp, _ := first.Spread("", "p99_ms")
		lp, _ := last.Spread("", "p99_ms")
		s += fmt.Sprintf("; mean response time went from %s at %s to %s at %d (p99 %.2f to %.2f ms)",
			outcome.SpreadText(fm, "%.2f", " ms"), outcome.ClientsText(first.Clients), outcome.SpreadText(lm, "%.2f", " ms"), last.Clients, fp.Median, lp.Median)
	}
	return s + "."
}

// compareVerdict compares r with base by rule.Differ: peak throughput, and each
// reading at their last common client count.
func compareVerdict(base, r *outcome.Run, readings []watch.Stat, rule *measure.Rules) string {
	bp, _ := peakPoint(base)
	rp, _ := peakPoint(r)
	bt, rt := bp.Throughput(), rp.Throughput()
	spread := bt.N > 1 && rt.N > 1
	change := 0.0
	if bt.Median > 0 {
		change = (rt.Median - bt.Median) / bt.Median
	}
	figures := fmt.Sprintf("peak %s against %s (%+.1f %%", outcome.SpreadText(rt, "%.0f", "/s"), outcome.SpreadText(bt, "%.0f", "/s"), 100*change)
	var s string
	switch rule.Differ(rt, bt) {
	case 0:
		s = fmt.Sprintf("%s and %s are the same within noise: %s; the ranges, widened to ±%g %%, overlap)", r.Name, base.Name, figures, rule.NoiseFloor)
	case 1:
		s = fmt.Sprintf("%s beats %s: %s%s)", r.Name, base.Name, figures, groundOf(spread))
	default:
		s = fmt.Sprintf("%s is worse than %s: %s%s)", r.Name, base.Name, figures, groundOf(spread))
	}
	bl, rl := common(base, r)
	if bl == nil {
		return s + "."
	}
	bm, _ := bl.Spread("", "mean_ms")
	rm, _ := rl.Spread("", "mean_ms")
	s += fmt.Sprintf("; at %s mean response time %s against %s", outcome.ClientsText(rl.Clients), outcome.SpreadText(rm, "%.2f", " ms"), outcome.SpreadText(bm, "%.2f", " ms"))
	var moved []string
	for _, rd := range readings {
		a, okA := bl.ReadingSpread(rd.Name)
		b, okB := rl.ReadingSpread(rd.Name)
		if !okA || !okB {
			continue
		}
		u := outcome.UnitSuffix(rd.Unit)
		if math.Abs(a.Max) < 0.005 && math.Abs(b.Max) < 0.005 && math.Abs(a.Min) < 0.005 && math.Abs(b.Min) < 0.005 {
			continue // zero in both: nothing to say
		}
		verb := "fell"
		switch d := rule.Differ(b, a); {
		case d == 0 || math.Abs(b.Median-a.Median) < 0.01:
			moved = append(moved, fmt.Sprintf("%s stayed at %s", rd.Name, outcome.SpreadText(b, "auto", u)))
			continue
		case d > 0:
			verb = "rose"
		}
		moved = append(moved, fmt.Sprintf("%s %s from %s to %s", rd.Name, verb, outcome.SpreadText(a, "auto", ""), outcome.SpreadText(b, "auto", u)))
	}
	if len(moved) > 0 {
		s += ", while " + strings.Join(moved, ", ")
	}
	return s + "."
}

// groundOf says on what ground a difference was called one.
func groundOf(spread bool) string {
	if spread {
		return "; beyond the spread"
	}
	return "; single measurements: beyond the noise floor only"
}

// noiseRule is the noise rule the result was decided with: its noise
// floor and confidence, the defaults where it has none.
func noiseRule(r *outcome.Result) *measure.Rules {
	rule := &measure.Rules{}
	if d := r.Disturbance; d != nil {
		rule.NoiseFloor, rule.Confidence = d.NoiseFloor, d.Confidence
	}
	rule.Check("disturbance") // fills in the defaults
	return rule
}

// coldVerdict describes the first requests of a run's first step, when recorded.
func coldVerdict(r *outcome.Run) string {
	if len(r.Points) == 0 || r.Points[0].Result.Timeline == nil {
		return ""
	}
	tl := r.Points[0].Result.Timeline
	var first []string
	for _, q := range tl.Requests[:min(3, len(tl.Requests))] {
		first = append(first, cmp.Or(q.Error, fmt.Sprintf("%.2f", q.LatencyMs)))
	}
	if len(first) == 0 {
		return ""
	}
	s := fmt.Sprintf("%s: the first requests took %s ms", r.Name, strings.Join(first, ", "))
	if tl.SteadyIndex >= 0 && tl.SteadyP50Ms > 0 {
		s += fmt.Sprintf("; steady state (p50 %.2f ms) from request %d on", tl.SteadyP50Ms, tl.SteadyIndex)
	}
	return s + "."
}

// sloVerdict says up to which client count a run met its objectives, and which failed.
func sloVerdict(r *outcome.Run) string {
	var metUpTo int
	var warnings []string
	for _, p := range r.Points {
		if len(p.SLO) == 0 {
			return ""
		}
		for _, o := range p.SLO {
			if o.Warning != "" {
				warnings = append(warnings, fmt.Sprintf("%s at %s: %s", o.Objective, outcome.ClientsText(p.Clients), o.Warning))
			}
		}
		for _, o := range p.SLO {
			if !o.Pass {
				s := fmt.Sprintf("%s: SLO %s failed at %s (measured %.4g)", r.Name, o.Objective, outcome.ClientsText(p.Clients), o.Value)
				if metUpTo > 0 {
					s += fmt.Sprintf("; every objective was met up to %s", outcome.ClientsText(metUpTo))
				}
				return s + warningText(warnings)
			}
		}
		metUpTo = p.Clients
	}
	return fmt.Sprintf("%s: every SLO objective was met at every client count", r.Name) + warningText(warnings)
}

func warningText(w []string) string {
	if len(w) == 0 {
		return "."
	}
	return ". Too few samples: " + strings.Join(w, "; ") + "."
}

// peakPoint returns the point with the highest median throughput.
func peakPoint(r *outcome.Run) (*outcome.Point, int) {
	best := r.Points[0]
	for _, p := range r.Points[1:] {
		if p.Throughput().Median > best.Throughput().Median {
			best = p
		}
	}
	return best, best.Clients
}

// common returns a's and b's points at the largest client count both measured.
func common(a, b *outcome.Run) (*outcome.Point, *outcome.Point) {
	for i := len(b.Points) - 1; i >= 0; i-- {
		for j := len(a.Points) - 1; j >= 0; j-- {
			if a.Points[j].Clients == b.Points[i].Clients {
				return a.Points[j], b.Points[i]
			}
		}
	}
	return nil, nil
}
