package experiment

import (
	"bbslab/loadtest/measure"
	"fmt"
	"math"
	"slices"
	"strings"

	"bbslab/loadtest"
	"bbslab/loadtest/text"
	"bbslab/loadtest/watch"
)

// verdicts computes the plain-language findings of an experiment from its
// results: each run's peak throughput and where it saturated, each run
// compared with the first at its peak and at the largest client count with
// the server readings that differ, and the profile shares. Nothing in it
// is written by hand. disk, when not nil, adds its verdict.
// uslVerdict fits the Universal Scalability Law to a run's sweep (at
// least 3 client counts) and sets its predicted peak beside the measured
// one; "" when it cannot be fitted.
func uslVerdict(r *RunX) string {
	var clients []int
	var x []float64
	peak, at := 0.0, 0
	for _, p := range r.Points {
		if p.Result == nil || p.Result.Total.Throughput <= 0 {
			continue
		}
		clients, x = append(clients, p.Clients), append(x, p.Result.Total.Throughput)
		if p.Result.Total.Throughput > peak {
			peak, at = p.Result.Total.Throughput, p.Clients
		}
	}
	u, err := loadtest.FitUSL(clients, x)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s: %s; measured peak %.0f/s at %d clients.", r.Name, u, peak, at)
}

func verdicts(res *Result, disk *watch.DiskTable) []string {
	var out []string
	var base *RunX
	readings := machineFree(res)
	// Only the points with a used measurement: a point every measurement
	// of which was disturbed says nothing of the run.
	runs := make([]*RunX, len(res.Runs))
	for i, r := range res.Runs {
		runs[i] = r.measuredOnly()
	}
	for i, r := range runs {
		switch {
		case len(res.Runs[i].Points) == 0 && len(res.Tunes) > 0 && r.Error == "":
			continue // tuned, not swept: the Tuning section says what was measured
		case len(res.Runs[i].Points) == 0:
			out = append(out, fmt.Sprintf("%s: no measurements (%s).", r.Name, orNone(r.Error)))
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
		out = append(out, compareVerdict(base, r, readings, res.noiseRule()))
	}
	for _, r := range runs {
		if v := coldVerdict(r); v != "" {
			out = append(out, v)
		}
	}
	for _, r := range runs {
		if v := sloVerdict(r); v != "" {
			out = append(out, v)
		}
	}
	for _, r := range runs {
		for _, g := range profileGroups(r.Profiles) {
			if len(g.buckets) == 0 {
				continue
			}
			var parts []string
			for _, b := range g.buckets {
				parts = append(parts, SpreadText(b.share.Scaled(100), "%.0f", " %")+" "+b.name)
			}
			out = append(out, fmt.Sprintf("%s (%s profile%s): of the samples in focus (profile.focus), %s.", r.Name, g.kind, g.where(), strings.Join(parts, ", ")))
		}
		for _, pt := range r.Points {
			if pt.Result.Cost.Bottleneck {
				out = append(out, fmt.Sprintf("%s at %s: the load generator itself may have been the bottleneck (CPU %s %% of a core).", r.Name, clientsText(pt.Clients), pt.Result.Cost.CPUText("%.0f")))
			}
			if e := pt.Result.Total.Errors; e > 0 {
				out = append(out, fmt.Sprintf("%s at %s: %d errors (%s).", r.Name, clientsText(pt.Clients), e, text.ErrorKindsText(pt.Result.Total.ErrorKinds)))
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

// measuredOnly returns res with only the points that have a used
// measurement (runResult.measuredOnly).
func (res *Result) measuredOnly() *Result {
	m := *res
	m.Runs = make([]*RunX, len(res.Runs))
	for i, r := range res.Runs {
		m.Runs[i] = r.measuredOnly()
	}
	return &m
}

// measuredOnly returns r with only its points that have a used
// measurement, and only the profiles taken in used measurements.
func (r *RunX) measuredOnly() *RunX {
	m := *r
	m.Points, m.Profiles = nil, nil
	used := map[int]bool{}
	legacy := false
	for _, p := range r.Points {
		if !p.Measured() {
			continue
		}
		m.Points = append(m.Points, p)
		seqs := p.UsedSeqs()
		legacy = legacy || seqs == nil
		for s := range seqs {
			used[s] = true
		}
	}
	for _, pr := range r.Profiles {
		if legacy || usedProfile(pr, used) {
			m.Profiles = append(m.Profiles, pr)
		}
	}
	return &m
}

// machineFree returns the readings less those of other work on the
// machine (Result.Disturbance's): they describe the machine, not the
// runs, and the verdicts compare runs.
func machineFree(res *Result) []watch.Stat {
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

// runVerdict describes one run's curve, each figure the median of its
// point's repeats, with the range when there were several.
func runVerdict(r *RunX) string {
	peak, at := peakPoint(r)
	first, last := r.Points[0], r.Points[len(r.Points)-1]
	pt := peak.Throughput()
	s := fmt.Sprintf("%s: peak %s at %s", r.Name, SpreadText(pt, "%.0f", "/s"), clientsText(at))
	knee := kneePoint(r, pt.Median)
	if knee != nil && knee.Clients < at {
		s += fmt.Sprintf(" (90 %% of it already at %s)", clientsText(knee.Clients))
	}
	if lt := last.Throughput(); last != peak && lt.Median < 0.9*pt.Median {
		s += fmt.Sprintf("; throughput fell to %s at %s", SpreadText(lt, "%.0f", "/s"), clientsText(last.Clients))
	}
	if len(r.Points) > 1 {
		fm, _ := first.Spread("", "mean_ms")
		lm, _ := last.Spread("", "mean_ms")
		fp, _ := first.Spread("", "p99_ms")
		lp, _ := last.Spread("", "p99_ms")
		s += fmt.Sprintf("; mean response time went from %s at %s to %s at %d (p99 %.2f to %.2f ms)",
			SpreadText(fm, "%.2f", " ms"), clientsText(first.Clients), SpreadText(lm, "%.2f", " ms"), last.Clients, fp.Median, lp.Median)
	}
	return s + "."
}

// compareVerdict compares run r with base by the noise rule
// (measure.Rules.Differ): their peaks' throughput ranges widened to the
// noise floor, and each reading at their last common client count the
// same way. A difference is one only beyond both ranges.
func compareVerdict(base, r *RunX, readings []watch.Stat, rule *measure.Rules) string {
	bp, _ := peakPoint(base)
	rp, _ := peakPoint(r)
	bt, rt := bp.Throughput(), rp.Throughput()
	spread := bt.N > 1 && rt.N > 1
	change := 0.0
	if bt.Median > 0 {
		change = (rt.Median - bt.Median) / bt.Median
	}
	figures := fmt.Sprintf("peak %s against %s (%+.1f %%", SpreadText(rt, "%.0f", "/s"), SpreadText(bt, "%.0f", "/s"), 100*change)
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
	s += fmt.Sprintf("; at %s mean response time %s against %s", clientsText(rl.Clients), SpreadText(rm, "%.2f", " ms"), SpreadText(bm, "%.2f", " ms"))
	var moved []string
	for _, rd := range readings {
		a, okA := bl.ReadingSpread(rd.Name)
		b, okB := rl.ReadingSpread(rd.Name)
		if !okA || !okB {
			continue
		}
		u := unitSuffix(rd.Unit)
		if math.Abs(a.Max) < 0.005 && math.Abs(b.Max) < 0.005 && math.Abs(a.Min) < 0.005 && math.Abs(b.Min) < 0.005 {
			continue // zero in both: nothing to say
		}
		switch d := rule.Differ(b, a); {
		case d == 0 || math.Abs(b.Median-a.Median) < 0.01:
			moved = append(moved, fmt.Sprintf("%s stayed at %s", rd.Name, SpreadText(b, "auto", u)))
		case d > 0:
			moved = append(moved, fmt.Sprintf("%s rose from %s to %s", rd.Name, SpreadText(a, "auto", ""), SpreadText(b, "auto", u)))
		default:
			moved = append(moved, fmt.Sprintf("%s fell from %s to %s", rd.Name, SpreadText(a, "auto", ""), SpreadText(b, "auto", u)))
		}
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

// noiseRule is the noise rule the result's comparisons use: the file's
// noise floor, or the default for a result written without one.
func (r *Result) noiseRule() *measure.Rules {
	rule := &measure.Rules{NoiseFloor: measure.DefaultNoiseFloor}
	if r.Disturbance != nil && r.Disturbance.NoiseFloor > 0 {
		rule.NoiseFloor = r.Disturbance.NoiseFloor
	}
	return rule
}

// coldVerdict describes the first requests of a run's first step, when
// they were recorded one by one.
func coldVerdict(r *RunX) string {
	if len(r.Points) == 0 || r.Points[0].Result.Timeline == nil {
		return ""
	}
	tl := r.Points[0].Result.Timeline
	var first []string
	for _, q := range tl.Requests {
		if len(first) == 3 {
			break
		}
		if q.Error == "" {
			first = append(first, fmt.Sprintf("%.2f", q.LatencyMs))
		} else {
			first = append(first, q.Error)
		}
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

// sloVerdict says up to which client count a run met its objectives, and
// which objective failed first.
func sloVerdict(r *RunX) string {
	var metUpTo int
	var warnings []string
	for _, p := range r.Points {
		if len(p.SLO) == 0 {
			return ""
		}
		for _, o := range p.SLO {
			if o.Warning != "" {
				warnings = append(warnings, fmt.Sprintf("%s at %s: %s", o.Objective, clientsText(p.Clients), o.Warning))
			}
		}
		for _, o := range p.SLO {
			if !o.Pass {
				s := fmt.Sprintf("%s: SLO %s failed at %s (measured %.4g)", r.Name, o.Objective, clientsText(p.Clients), o.Value)
				if metUpTo > 0 {
					s += fmt.Sprintf("; every objective was met up to %s", clientsText(metUpTo))
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
func peakPoint(r *RunX) (*Point, int) {
	best := r.Points[0]
	for _, p := range r.Points[1:] {
		if p.Throughput().Median > best.Throughput().Median {
			best = p
		}
	}
	return best, best.Clients
}

// kneePoint returns the first point whose median reaches 90 % of peak.
func kneePoint(r *RunX, peak float64) *Point {
	for _, p := range r.Points {
		if p.Throughput().Median >= 0.9*peak {
			return p
		}
	}
	return nil
}

// common returns the points of a and b at the largest client count both
// measured.
func common(a, b *RunX) (*Point, *Point) {
	for i := len(b.Points) - 1; i >= 0; i-- {
		for j := len(a.Points) - 1; j >= 0; j-- {
			if a.Points[j].Clients == b.Points[i].Clients {
				return a.Points[j], b.Points[i]
			}
		}
	}
	return nil, nil
}

// clientsText says "1 client" or "N clients".
func clientsText(n int) string {
	if n == 1 {
		return "1 client"
	}
	return fmt.Sprintf("%d clients", n)
}

func orNone(s string) string {
	if s == "" {
		return "none taken"
	}
	return s
}

// profileGroup is the profiles of one kind taken at one client count, one
// per repeat, with each bucket's share over them.
type profileGroup struct {
	kind     string
	clients  int
	profiles []*StepProfile
	buckets  []bucketShare
}

type bucketShare struct {
	name  string
	share loadtest.Spread
}

func (g profileGroup) where() string {
	if g.clients == 0 {
		return ""
	}
	s := ", " + clientsText(g.clients)
	if n := len(g.profiles); n > 1 {
		s += fmt.Sprintf(", %d repeats", n)
	}
	return s
}

// profileGroups groups profiles by kind and client count, in order.
func profileGroups(ps []*StepProfile) []profileGroup {
	var out []profileGroup
	for _, p := range ps {
		i := slices.IndexFunc(out, func(g profileGroup) bool { return g.kind == p.Kind && g.clients == p.Clients })
		if i < 0 {
			out = append(out, profileGroup{kind: p.Kind, clients: p.Clients})
			i = len(out) - 1
		}
		out[i].profiles = append(out[i].profiles, p)
	}
	for i := range out {
		g := &out[i]
		for _, b := range g.profiles[0].Buckets {
			if sp, ok := shareOver(g.profiles, b.Name); ok {
				g.buckets = append(g.buckets, bucketShare{b.Name, sp})
			}
		}
	}
	return out
}

// shareOver is a bucket's share over profiles.
func shareOver(ps []*StepProfile, bucket string) (loadtest.Spread, bool) {
	var vs []float64
	for _, p := range ps {
		for _, b := range p.Buckets {
			if b.Name == bucket {
				vs = append(vs, b.Share)
			}
		}
	}
	if len(vs) == 0 {
		return loadtest.Spread{}, false
	}
	return loadtest.SpreadOf(vs), true
}
