package loadtest

import (
	"fmt"
	"math"
	"strings"
)

// Verdicts computes the plain-language findings of an experiment from its
// results: each run's peak throughput and where it saturated, each run
// compared with the first at its peak and at the largest client count with
// the server readings that differ, and the profile shares. Nothing in it
// is written by hand.
func Verdicts(res *ExperimentResult) []string {
	var out []string
	var base *RunResult
	for _, r := range res.Runs {
		if len(r.Points) == 0 {
			out = append(out, fmt.Sprintf("%s: no measurements (%s).", r.Name, orNone(r.Error)))
			continue
		}
		out = append(out, runVerdict(r))
		if base == nil {
			base = r
			continue
		}
		out = append(out, compareVerdict(base, r, res.Readings))
	}
	for _, r := range res.Runs {
		if v := coldVerdict(r); v != "" {
			out = append(out, v)
		}
	}
	for _, r := range res.Runs {
		if v := sloVerdict(r); v != "" {
			out = append(out, v)
		}
	}
	for _, r := range res.Runs {
		for _, p := range r.Profiles {
			if len(p.Buckets) == 0 {
				continue
			}
			var parts []string
			for _, b := range p.Buckets {
				parts = append(parts, fmt.Sprintf("%.0f %% %s", 100*b.Share, b.Name))
			}
			out = append(out, fmt.Sprintf("%s (%s profile): of the handlers' wall time, %s.", r.Name, p.Kind, strings.Join(parts, ", ")))
		}
		for _, pt := range r.Points {
			if pt.Result.Cost.Bottleneck {
				out = append(out, fmt.Sprintf("%s at %d clients: the load generator itself may have been the bottleneck (CPU %.0f %% of a core).", r.Name, pt.Clients, pt.Result.Cost.CPUPercent))
			}
			if e := pt.Result.Total.Errors; e > 0 {
				out = append(out, fmt.Sprintf("%s at %d clients: %d errors (%s).", r.Name, pt.Clients, e, errorKindsText(pt.Result.Total.ErrorKinds)))
			}
		}
	}
	if v := diskVerdict(res.Disk); v != "" {
		out = append(out, v)
	}
	if res.Error != "" {
		out = append(out, "The experiment stopped early, so the runs after the failure are missing: "+res.Error)
	}
	return out
}

// runVerdict describes one run's curve.
func runVerdict(r *RunResult) string {
	peak, at := peakPoint(r)
	first, last := r.Points[0], r.Points[len(r.Points)-1]
	s := fmt.Sprintf("%s: peak %.0f/s at %s", r.Name, peak.Result.Total.Throughput, clientsText(at))
	knee := kneePoint(r, peak.Result.Total.Throughput)
	if knee != nil && knee.Clients < at {
		s += fmt.Sprintf(" (90 %% of it already at %s)", clientsText(knee.Clients))
	}
	if last != peak && last.Result.Total.Throughput < 0.9*peak.Result.Total.Throughput {
		s += fmt.Sprintf("; throughput fell to %.0f/s at %s", last.Result.Total.Throughput, clientsText(last.Clients))
	}
	if len(r.Points) > 1 {
		s += fmt.Sprintf("; mean response time went from %.2f ms at %s to %.2f ms at %d (p99 %.2f to %.2f ms)",
			first.Result.Total.MeanMs, clientsText(first.Clients), last.Result.Total.MeanMs, last.Clients, first.Result.Total.P99Ms, last.Result.Total.P99Ms)
	}
	return s + "."
}

// compareVerdict compares run r with base at their peaks and at the
// largest client count both measured, naming the readings that moved.
func compareVerdict(base, r *RunResult, readings []Reading) string {
	bp, _ := peakPoint(base)
	rp, _ := peakPoint(r)
	bt, rt := bp.Result.Total.Throughput, rp.Result.Total.Throughput
	change := 0.0
	if bt > 0 {
		change = (rt - bt) / bt
	}
	var s string
	switch {
	case math.Abs(change) < 0.05:
		s = fmt.Sprintf("%s is no better than %s: peak %.0f/s against %.0f/s (%+.1f %%)", r.Name, base.Name, rt, bt, 100*change)
	case change > 0:
		s = fmt.Sprintf("%s beats %s: peak %.0f/s against %.0f/s (%+.1f %%)", r.Name, base.Name, rt, bt, 100*change)
	default:
		s = fmt.Sprintf("%s is worse than %s: peak %.0f/s against %.0f/s (%+.1f %%)", r.Name, base.Name, rt, bt, 100*change)
	}
	bl, rl := common(base, r)
	if bl == nil {
		return s + "."
	}
	s += fmt.Sprintf("; at %s mean response time %.2f ms against %.2f ms", clientsText(rl.Clients), rl.Result.Total.MeanMs, bl.Result.Total.MeanMs)
	var moved []string
	for _, rd := range readings {
		a, okA := bl.Server[rd.Name]
		b, okB := rl.Server[rd.Name]
		if !okA || !okB {
			continue
		}
		u := unitSuffix(rd.Unit)
		if math.Abs(a) < 0.005 && math.Abs(b) < 0.005 {
			continue // zero in both: nothing to say
		}
		switch {
		case math.Abs(b-a) <= 0.1*math.Max(math.Abs(a), math.Abs(b)) || math.Abs(b-a) < 0.01:
			moved = append(moved, fmt.Sprintf("%s stayed at %.2f%s", rd.Name, b, u))
		case b > a:
			moved = append(moved, fmt.Sprintf("%s rose from %.2f to %.2f%s", rd.Name, a, b, u))
		default:
			moved = append(moved, fmt.Sprintf("%s fell from %.2f to %.2f%s", rd.Name, a, b, u))
		}
	}
	if len(moved) > 0 {
		s += ", while " + strings.Join(moved, ", ")
	}
	return s + "."
}

// coldVerdict describes the first requests of a run's first step, when
// they were recorded one by one.
func coldVerdict(r *RunResult) string {
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
func sloVerdict(r *RunResult) string {
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

// peakPoint returns the point with the highest throughput.
func peakPoint(r *RunResult) (*Point, int) {
	best := r.Points[0]
	for _, p := range r.Points[1:] {
		if p.Result.Total.Throughput > best.Result.Total.Throughput {
			best = p
		}
	}
	return best, best.Clients
}

// kneePoint returns the first point reaching 90 % of peak.
func kneePoint(r *RunResult, peak float64) *Point {
	for _, p := range r.Points {
		if p.Result.Total.Throughput >= 0.9*peak {
			return p
		}
	}
	return nil
}

// common returns the points of a and b at the largest client count both
// measured.
func common(a, b *RunResult) (*Point, *Point) {
	for i := len(b.Points) - 1; i >= 0; i-- {
		for j := len(a.Points) - 1; j >= 0; j-- {
			if a.Points[j].Clients == b.Points[i].Clients {
				return a.Points[j], b.Points[i]
			}
		}
	}
	return nil, nil
}

func errorKindsText(m map[string]int64) string {
	var parts []string
	for _, k := range sortedKinds(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
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
