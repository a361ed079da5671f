package report

import (
	"bbslab/loadtest/experiment/outcome"
	"fmt"
)

// remeasuredPoint is a point some of whose measurements were disturbed,
// suspect or measured again, as the report lists it.
type remeasuredPoint struct {
	Run     string
	Clients int
	// Attempts are every measurement of the point, in order.
	Attempts []*outcome.Repeat
	// Busy says why the point has no used measurement ("" when it has).
	Busy string
}

// remeasured lists the points with a disturbed, suspect or re-measured
// measurement, in the order of the runs and their points.
func remeasured(res *outcome.Result) []remeasuredPoint {
	var out []remeasuredPoint
	for _, r := range res.Runs {
		for _, p := range r.Points {
			flagged := false
			for _, rp := range p.Repeats {
				flagged = flagged || rp.Disturbed || rp.Suspect || rp.Dropped && !rp.Recalibrated || rp.Attempt > 1
			}
			if flagged {
				out = append(out, remeasuredPoint{Run: r.Name, Clients: p.Clients, Attempts: p.Repeats, Busy: p.BusyText(r.Name)})
			}
		}
	}
	return out
}

// RemeasuredText is the report's headline on other work on the machine:
// how many points were measured again and why, how many could not be
// measured undisturbed, and the extra time; "" when nothing was
// disturbed or suspect.
func RemeasuredText(res *outcome.Result) string {
	d := res.Disturbance
	ps := remeasured(res)
	if d == nil || len(ps) == 0 {
		return ""
	}
	disturbed, suspect, busy := 0, 0, 0
	for _, p := range ps {
		for _, rp := range p.Attempts {
			if rp.Disturbed {
				disturbed++
			}
			if rp.Suspect {
				suspect++
			}
		}
		if p.Busy != "" {
			busy++
		}
	}
	s := fmt.Sprintf("Other work on the machine: %s had a measurement disturbed or suspect and %s taken "+
		"(%s disturbed: other work took the server's or the generator's cores beyond the baseline by more than %g points; "+
		"%s: the server's CPU per request off the point's other repeats by more than %g %%), in %.0f s of the %.0f s allowed",
		count(len(ps), "point"), count(d.Remeasured, "re-measure"), count(disturbed, "measurement"), d.Threshold,
		count(suspect, "suspect"), d.CPUPerRequest, d.ExtraSeconds, d.MaxExtraSeconds)
	if busy > 0 {
		s += fmt.Sprintf("; %s could not be measured undisturbed and the claims on them are not measured", count(busy, "point"))
	}
	return s + "."
}

// count says "1 point" or "N points".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// attemptText describes one measurement for the report's list: its
// repeat and attempt, throughput, interference and what became of it.
func attemptText(rp *outcome.Repeat) string {
	s := fmt.Sprintf("repeat %d, attempt %d (%s UTC): %.0f/s, interference %s", max(rp.Repeat, 1), max(rp.Attempt, 1),
		rp.Start.UTC().Format("15:04:05"), rp.Total.Throughput, rp.Interference.Text())
	switch {
	case rp.Dropped:
		s += ": dropped"
	case rp.Suspect:
		s += ": used (suspect)"
	default:
		s += ": used"
	}
	if rp.Reason != "" {
		s += " (" + rp.Reason + ")"
	}
	return s
}
