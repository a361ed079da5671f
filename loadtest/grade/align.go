package grade

import (
	"bbslab/truth"
	"fmt"
	"time"
)

// align places a Relative report in the truth's time, at -window or where the
// truth's per-second counts best match its own (least absolute difference, the
// latest on a tie), and says how; a report it cannot place stays Relative.
func align(r *Report, t *Truth, win *truth.Span) string {
	if !r.Relative {
		return ""
	}
	if win != nil {
		r.Start, r.End, r.Relative = win.Start, win.End, false
		if r.Span == 0 || r.Span > win.End.Sub(win.Start) {
			r.Span = win.End.Sub(win.Start)
		}
		return "placed at -window"
	}
	if len(r.Requests) == 0 || len(t.Seconds) == 0 {
		return "no times to match: graded against the whole window"
	}
	own := perSecond(r.Requests)
	secs := t.Seconds
	if len(secs) < len(own) {
		r.Start, r.End, r.Relative = secs[0].T, secs[0].T.Add(r.Span), false
		return fmt.Sprintf("longer (%d s) than the truth's window (%d s): placed at its start", len(own), len(secs))
	}
	best, bestDiff := 0, int64(-1)
	for i := 0; i+len(own) <= len(secs); i++ {
		var diff int64
		for k, c := range own {
			diff += max(c-secs[i+k].Requests, secs[i+k].Requests-c)
		}
		if bestDiff < 0 || diff <= bestDiff {
			best, bestDiff = i, diff
		}
	}
	r.Start, r.Relative = secs[best].T, false
	r.End = r.Start.Add(r.Span)
	placed := fmt.Sprintf("matched to the truth's seconds from %s (%d s; the counts differ by %d in all)",
		r.Start.Format(time.TimeOnly), len(own), bestDiff)
	if start, ok := refine(r, t.Logged); ok {
		r.Start, r.End = start, start.Add(r.Span)
		placed += fmt.Sprintf("; to the truth's log's arrivals: from %s", r.Start.Format("15:04:05.000"))
	}
	return placed
}

func perSecond(reqs []Request) []int64 {
	var out []int64
	for _, q := range reqs {
		k := int(q.At / time.Second)
		for len(out) <= k {
			out = append(out, 0)
		}
		out[k]++
	}
	return out
}
