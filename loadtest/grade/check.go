package grade

import (
	"bbslab/truth"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Tolerances of the checks, as shares of the server's figure (omissionLimit:
// of the stalls' requests a tool may leave unsent or unseen in its tail).
const (
	countTolerance  = 0.005
	omissionLimit   = 0.25
	percentileSlack = 0.01
)

// A Verdict is the outcome of one check.
type Verdict string

// The verdicts: only Fail fails the grade.
const (
	Pass          Verdict = "PASS"
	Fail          Verdict = "FAIL"
	CannotTell    Verdict = "CANNOT TELL"
	NotApplicable Verdict = "N/A"
)

// A Check is one check's verdict and its figures in words.
type Check struct {
	Name    string
	Verdict Verdict
	Text    string
}

// A Grading holds one report graded against the truth.
type Grading struct {
	Report *Report
	Placed string // how a report without times was placed (align)
	// Server is the truth's latency; Served its count in the span's ServedSecs seconds.
	Server     Percentiles
	Served     int64
	ServedSecs int
	// Stalls are the truth's stalls within the report's span.
	Stalls    []truth.Span
	StallTime time.Duration
	// Rate is the tool's own rate outside the stalls (/s), Due the
	// requests it puts in them, SentInStalls those sent there (-1: unknown).
	Rate         float64
	Due          float64
	SentInStalls int64
	// Expected is the latency the stalls' requests should have seen (ms): arriving
	// at a in stall [s, e], a request waits e - a, then the median service time.
	Expected Percentiles
	// TailAt (ms, half the shortest stall) starts the tail; TailDue are the requests
	// a tool at Rate has at or above it, TailSeen those it has (-1: unknown).
	TailAt   float64
	TailDue  float64
	TailSeen int64
	// ServerInStalls and ServerTail are those counts from the truth's log (-1: no log).
	ServerInStalls, ServerTail int64
	// RanThrough: every stall ended while the tool ran, wherever its span lies.
	RanThrough bool
	Checks     []Check
}

// Failed says whether any check failed.
func (g *Grading) Failed() bool {
	return slices.ContainsFunc(g.Checks, func(c Check) bool { return c.Verdict == Fail })
}

// gradeReport grades r (placed in time) against t.
func gradeReport(r *Report, t *Truth) *Grading {
	sm := t.ServerMS
	g := &Grading{Report: r, SentInStalls: -1, TailSeen: -1, ServerInStalls: -1, ServerTail: -1,
		Server: Percentiles{P50: sm.P50, P90: sm.P90, P95: sm.P95, P99: sm.P99, P999: sm.P999, Max: sm.Max}}
	g.RanThrough = true
	if r.Relative {
		g.Served, g.ServedSecs = t.Requests, len(t.Seconds)
		for _, s := range t.Stalls {
			g.Stalls = append(g.Stalls, s)
			g.StallTime += s.End.Sub(s.Start)
			g.RanThrough = g.RanThrough && !s.Start.Before(t.until().Add(-r.Span)) && !s.End.After(t.Start.Add(r.Span))
		}
	} else {
		g.Served, g.ServedSecs = t.served(r.Start, r.End)
		for _, s := range t.Stalls {
			from := slices.MaxFunc([]time.Time{s.Start, r.Start}, time.Time.Compare)
			to := slices.MinFunc([]time.Time{s.End, r.End}, time.Time.Compare)
			if to.After(from) {
				g.Stalls = append(g.Stalls, truth.Span{Start: from, End: to})
				g.StallTime += to.Sub(from)
				g.RanThrough = g.RanThrough && !s.End.After(r.End)
			}
		}
	}
	g.Rate = rateOutside(r, g.Stalls, g.StallTime)
	g.Due = g.Rate * g.StallTime.Seconds()
	if len(g.Stalls) > 0 {
		// Whole stalls: one cut by the span's edge would set the tail low.
		shortest := time.Duration(math.MaxInt64)
		for _, s := range t.Stalls {
			shortest = min(shortest, s.End.Sub(s.Start))
		}
		g.expect(t.ServiceMS.P50, shortest)
		if r.Requests != nil {
			g.SentInStalls = 0
			for _, q := range r.Requests {
				if inStalls(r.Start.Add(q.At), g.Stalls) {
					g.SentInStalls++
				}
			}
		}
		if r.Tail != nil {
			g.TailSeen = r.Tail(g.TailAt)
		}
		if t.Logged != nil {
			g.ServerInStalls, g.ServerTail = inStallsLogged(t.Logged, g.Stalls, g.TailAt)
		}
	}
	g.Checks = []Check{g.checkCounts(), g.checkPercentiles(), g.checkStalls()}
	return g
}

// rateOutside is the tool's rate outside the stalls: from its sends, from
// the lab's seconds clear of the stalls and their catch-up, or over its span.
func rateOutside(r *Report, stalls []truth.Span, stallTime time.Duration) float64 {
	out := r.Span - stallTime
	switch {
	case r.Requests != nil && out > 0:
		var n int64
		for _, q := range r.Requests {
			if !inStalls(r.Start.Add(q.At), stalls) {
				n++
			}
		}
		return float64(n) / out.Seconds()
	case len(r.Finished) > 0:
		var n int64
		var secs int
		for _, s := range r.Finished {
			nearStall := slices.ContainsFunc(stalls, func(st truth.Span) bool {
				catchUp := st.End.Add(st.End.Sub(st.Start) + time.Second)
				return s.T.Before(catchUp) && s.T.Add(time.Second).After(st.Start)
			})
			if !nearStall {
				n += s.Requests
				secs++
			}
		}
		if secs > 0 {
			return float64(n) / float64(secs)
		}
	}
	if r.Span <= 0 {
		return 0
	}
	return float64(r.Sent) / r.Span.Seconds()
}

// expect fills the latency the stalls' requests should see, arriving 1 ms
// apart, and the tail's threshold from the shortest whole stall.
func (g *Grading) expect(serviceMs float64, shortest time.Duration) {
	var lats []float64
	for _, s := range g.Stalls {
		d := s.End.Sub(s.Start)
		for a := time.Duration(0); a < d; a += time.Millisecond {
			lats = append(lats, float64(d-a)/float64(time.Millisecond)+serviceMs)
		}
	}
	sort.Float64s(lats)
	g.Expected = percentiles(lats)
	g.TailAt = float64(shortest) / float64(time.Millisecond) / 2
	for _, s := range g.Stalls {
		d := float64(s.End.Sub(s.Start)) / float64(time.Millisecond)
		g.TailDue += g.Rate * math.Min(d, math.Max(0, d-g.TailAt+serviceMs)) / 1000
	}
}

func (g *Grading) checkCounts() Check {
	c := Check{Name: "counts agree"}
	r := g.Report
	if g.Served == 0 {
		c.Verdict, c.Text = Fail, fmt.Sprintf("the server served no request in the tool's span; the tool counted %d responses", r.Responses)
		return c
	}
	diff := float64(r.Responses-g.Served) / float64(g.Served)
	c.Text = fmt.Sprintf("tool %d responses, server %d served (%+.2f %%, tolerance %.1f %%)", r.Responses, g.Served, 100*diff, 100*countTolerance)
	c.Verdict = Pass
	if math.Abs(diff) > countTolerance {
		c.Verdict = Fail
	}
	return c
}

func (g *Grading) checkPercentiles() Check {
	s := g.Server
	c := Check{Name: "no percentile below the server's"}
	client := g.Report.Lat
	pairs := []struct {
		name           string
		client, server float64
	}{{"p50", client.P50, s.P50}, {"p90", client.P90, s.P90}, {"p95", client.P95, s.P95}, {"p99", client.P99, s.P99}, {"p99.9", client.P999, s.P999}, {"max", client.Max, s.Max}}
	var below, compared []string
	for _, p := range pairs {
		if math.IsNaN(p.client) || p.server <= 0 {
			continue
		}
		compared = append(compared, p.name)
		slack := math.Max(g.Report.Resolution, percentileSlack*p.server)
		if p.client < p.server-slack {
			below = append(below, fmt.Sprintf("%s %.3f < server %.3f ms", p.name, p.client, p.server))
		}
	}
	switch {
	case len(compared) == 0:
		c.Verdict, c.Text = CannotTell, "no percentile to compare"
	case len(below) > 0:
		c.Verdict = Fail
		c.Text = strings.Join(below, "; ") + ": a client cannot see less than the server's time for the same requests"
	default:
		c.Verdict, c.Text = Pass, "compared "+strings.Join(compared, ", ")
	}
	if g.Report.Correction != nil && len(compared) > 0 {
		c.Text += "; the tool's figures include the synthetic samples of its correction for coordinated omission (max excepted): they are not its requests' percentiles, and a pass does not show that its requests' are at or above the server's"
	}
	return c
}

func (g *Grading) checkStalls() Check {
	c := Check{Name: "stalls visible"}
	r := g.Report
	switch {
	case len(g.Stalls) == 0:
		c.Verdict, c.Text = NotApplicable, "no stall in the tool's span"
		return c
	case r.Requests == nil && r.Tail == nil:
		return g.tailOnly(c)
	case g.Due < 1:
		c.Verdict, c.Text = CannotTell, fmt.Sprintf("at the tool's rate (%.1f/s) less than one request was due in the stalls", g.Rate)
		return c
	}
	c.Verdict = Pass
	var parts []string
	if g.SentInStalls >= 0 {
		omitted := math.Max(0, 1-float64(g.SentInStalls)/g.Due)
		parts = append(parts, fmt.Sprintf("sent %d of the %.0f requests its own rate (%.1f/s) puts in the stalls: %.1f %% never sent", g.SentInStalls, g.Due, g.Rate, 100*omitted))
		if omitted > omissionLimit {
			c.Verdict = Fail
			parts[0] = "coordinated omission: " + parts[0]
		}
	}
	if g.TailSeen >= 0 && g.TailDue >= 1 {
		hid, text := g.tailMissing(g.TailSeen)
		parts = append(parts, text)
		if hid {
			c.Verdict = Fail
			if g.SentInStalls < 0 {
				parts[len(parts)-1] = "coordinated omission (from the tail): " + parts[len(parts)-1]
			}
		}
	}
	c.Text = strings.Join(parts, "; ")
	return c
}

// tailMissing says, in words too, whether seen misses more than omissionLimit of TailDue.
func (g *Grading) tailMissing(seen int64) (bool, string) {
	unseen := math.Max(0, 1-float64(seen)/g.TailDue)
	return unseen > omissionLimit, fmt.Sprintf("%d requests at or above %.0f ms of the %.0f due: %.1f %% missing from its tail", seen, g.TailAt, g.TailDue, 100*unseen)
}

// tailOnly decides the stall check from percentiles alone: a tail reaching
// TailAt passes; a max below it (a request's, even when corrected) fails by
// the tail rule when the stalls' requests must have been answered meanwhile.
func (g *Grading) tailOnly(c Check) Check {
	r := g.Report
	c.Verdict, c.Text = CannotTell, "no per-request data or times: cannot tell which requests fell in a stall"
	if g.TailAt == 0 {
		return c
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"p99", r.Lat.P99}, {"p90", r.Lat.P90}, {"max", r.Lat.Max}} {
		if !math.IsNaN(p.v) && p.v >= g.TailAt {
			c.Verdict, c.Text = Pass, fmt.Sprintf("its tail shows the stall: %s %.1f ms >= %.0f ms", p.name, p.v, g.TailAt)
			if r.Correction != nil && p.name != "max" {
				c.Text += g.synthetic(p.name)
			}
			return c
		}
	}
	below := fmt.Sprintf("its max %.1f ms is below %.0f ms (half the shortest stall, %.0f ms)", r.Lat.Max, g.TailAt, 2*g.TailAt)
	switch {
	case math.IsNaN(r.Lat.Max):
		c.Text += fmt.Sprintf(", and its percentiles do not reach %.0f ms while its max is not known", g.TailAt)
	case !g.RanThrough:
		c.Text = below + ", but a stall may not have ended while the tool ran (placed nowhere, or the stall outlasts its span): its requests may have been answered after the tool stopped recording"
	case r.Sent > r.Responses:
		c.Text = below + fmt.Sprintf(", but %d of its requests got no response (errors or timeouts): the stalls' requests may be among them", r.Sent-r.Responses)
	case g.TailDue < 1:
		c.Text = below + fmt.Sprintf(", and at its rate (%.1f/s) less than one request was due that long in the stalls", g.Rate)
	default:
		hid, text := g.tailMissing(0)
		c.Text = below + ", so none of its requests waited that long: " + text
		if hid {
			c.Verdict, c.Text = Fail, "coordinated omission (from the tail): "+c.Text
		}
	}
	return c
}

// synthetic says when a corrected percentile (pct, "p99" or "p90")
// reaching the stall is the correction's: C connections hold at most C
// requests in each stall, fewer than the share above pct.
func (g *Grading) synthetic(pct string) string {
	r, corr := g.Report, g.Report.Correction
	s := "; but the tool's percentiles include the synthetic samples of its correction for coordinated omission"
	if corr.Connections == 0 || r.Responses == 0 {
		return s
	}
	above := map[string]float64{"p99": 0.01, "p90": 0.1}[pct]
	held := int64(corr.Connections * len(g.Stalls))
	share := float64(held) / float64(r.Responses)
	if share >= above {
		return s
	}
	stalls := fmt.Sprintf("%d stalls", len(g.Stalls))
	if len(g.Stalls) == 1 {
		stalls = "1 stall"
	}
	return s + fmt.Sprintf(": with %d connections, at most %d of its %d requests (%.3f %%) can wait in %s, fewer than the %.0f %% above a %s, so its %s is the correction's, not its requests'; its max (%.1f ms) is a request's",
		corr.Connections, held, r.Responses, 100*share, stalls, 100*above, pct, pct, r.Lat.Max)
}

func inStalls(t time.Time, stalls []truth.Span) bool {
	return slices.ContainsFunc(stalls, func(s truth.Span) bool { return !t.Before(s.Start) && t.Before(s.End) })
}
