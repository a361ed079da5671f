package experiment

import (
	"fmt"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
)

// clearLine returns a terminal's cursor to the start of the line and
// clears it, so that a log line replaces the progress line.
const clearLine = "\r\033[K"

// begin tells the dashboard that the next measurement starts and hooks
// the progress line into its seconds.
func (x *experimentRunner) begin(s *loadtest.Settings, lr *liveRun, clients int) {
	e := x.e
	stepLen := (time.Duration(e.Load.Warmup) + time.Duration(e.Load.Duration)).Seconds()
	perRun := len(e.Load.Clients) * max(e.Load.Repeats, 1)
	after := float64(max(0, x.total-x.seq-1)) * stepLen // the measurements after this one
	x.feed.Begin(feed.Position{Run: lr.run.Name, Step: min(lr.steps, perRun), Steps: perRun, Clients: clients,
		StepSeconds: stepLen, After: after})
	x.feed.Hook(s)
	if x.opt.Progress == nil {
		return
	}
	n, total, start := x.seq+1, x.total, time.Now()
	prev := s.OnSecond
	s.OnSecond = func(row loadtest.SecondRow) {
		prev(row)
		left := after + max(0, stepLen-time.Since(start).Seconds())
		phase := ""
		if row.Warmup {
			phase = " (warm-up)"
		}
		fmt.Fprintf(x.opt.Progress, "\rstep %d/%d  %s  %d clients  %8.1f req/s  p99 %8.3f ms  left %s%s   ",
			n, total, lr.run.Name, clients, row.Throughput, row.P99Ms, time.Duration(left*float64(time.Second)).Round(time.Second), phase)
	}
}

// liveClaims are the claims as the dashboard shows them. During the
// experiment (final false) only those decidable so far are given: a claim
// whose figures are not all measured yet is left out, unless a check
// already failed for certain.
func liveClaims(cs []ClaimResult, final bool) []live.Claim {
	var out []live.Claim
	for _, c := range cs {
		if !final && c.Outcome == NotMeasured {
			continue
		}
		out = append(out, live.Claim{ID: c.ID, Text: c.Text, Outcome: live.Outcome(c.Outcome)})
	}
	return out
}
