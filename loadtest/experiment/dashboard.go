package experiment

import (
	"fmt"
	"slices"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/claim"
	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// clearLine clears a terminal's line for a log line to replace progress.
const clearLine = "\r\033[K"

// begin tells the dashboard a measurement starts and returns its observers.
func (x *experimentRunner) begin(lr *serverRun, clients int) []loadtest.Observer {
	e := x.e
	s := e.runSettings(lr.run)
	stepLen := (s.Warmup + s.Duration).Seconds()
	perRun := len(e.Load.Clients) * max(e.Load.Repeats, 1)
	after := float64(max(0, x.total-x.seq-1)) * stepLen
	x.feed.Begin(feed.Position{Run: lr.run.Name, Step: min(lr.steps, perRun), Steps: perRun, Clients: clients,
		StepSeconds: stepLen, After: after})
	if x.opt.Progress == nil {
		return []loadtest.Observer{x.feed.Observer()}
	}
	start := time.Now()
	return []loadtest.Observer{x.feed.Observer(), &loadtest.Progress{W: x.opt.Progress, Hold: true, // the log's next line clears it
		Step: fmt.Sprintf("step %d/%d  %s  %d clients", x.seq+1, x.total, lr.run.Name, clients),
		Left: func() time.Duration {
			return time.Duration((after + max(0, stepLen-time.Since(start).Seconds())) * float64(time.Second))
		}}}
}

// liveClaims are the claims the dashboard shows: before final, those measured and not pending.
func liveClaims(cs []outcome.Claim, final bool, pending map[string]bool) []live.Claim {
	var out []live.Claim
	for _, c := range cs {
		if !final && (c.Outcome == live.NotMeasured || pending[c.ID]) {
			continue
		}
		out = append(out, c.Claim)
	}
	return out
}

// byPath keys a step's stats (but per-request ones) by their stats path.
func byPath(server map[string]float64, rs []watch.Stat) map[string]float64 {
	out := map[string]float64{}
	for _, r := range rs {
		if v, ok := server[r.Name]; ok && !r.PerRequest && r.Path != "" {
			out[r.Path] = v
		}
	}
	return out
}

// pendingClaims names the claims that read a run's "peak" or "last" before it measured every count.
func pendingClaims(claims []claim.Claim, res *outcome.Result, counts []int) map[string]bool {
	measured := map[string]int{}
	for _, r := range res.Runs {
		seen := map[int]bool{}
		for _, p := range r.Points {
			seen[p.Clients] = true
		}
		measured[r.Name] = len(seen)
	}
	out := map[string]bool{}
	for _, c := range claims {
		ks := c.Checks
		if c.Control != nil {
			ks = append(slices.Clone(ks), c.Control.Checks(c.Checks)...)
		}
		for _, k := range ks {
			for _, o := range []claim.Operand{k.Left, k.Right} {
				if o.Run != "" && (o.At == "peak" || o.At == "last") && measured[o.Run] < len(counts) {
					out[c.ID] = true
				}
			}
		}
	}
	return out
}
