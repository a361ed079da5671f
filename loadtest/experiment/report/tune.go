package report

import (
	"bbslab/loadtest/experiment/outcome"
	"bbslab/loadtest/watch"
	"fmt"
	"strings"
)

// tuneMarkdown is the report's section of the tunings: for each, every
// step (setting, throughput and p99 with their ranges, the limit and its
// evidence, the decision), the winner, what limits it, the stop and the
// article's two rules.
func tuneMarkdown(res *outcome.Result) string {
	if len(res.Tunes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Tuning\n\n")
	for _, tr := range res.Tunes {
		fmt.Fprintf(&b, "### %s from %s\n\n", tr.Run, tr.Start)
		if tr.Error != "" {
			fmt.Fprintf(&b, "**Failed:** %s\n\n", tr.Error)
		}
		r := tr.Result
		if r == nil {
			continue
		}
		b.WriteString("| step | workers/pool | throughput /s | p99 ms | limit | evidence | next |\n|---|---|---|---|---|---|---|\n")
		for _, st := range r.Steps {
			next := st.Decision
			if st.Next != nil {
				next = tuneKnobs(*st.Next) + ": " + st.Decision
			}
			fmt.Fprintf(&b, "| %d | %s | %.0f (%.0f-%.0f) | %.2f (%.2f-%.2f) | %s | %s | %s |\n", st.N, tuneKnobs(st.Knobs),
				st.Throughput.Median, st.Throughput.Min, st.Throughput.Max, st.Latency.Median, st.Latency.Min, st.Latency.Max,
				st.Diagnosis.Limit, mdCell(st.Diagnosis.Evidence), mdCell(next))
		}
		met := "misses"
		if r.WinnerMet {
			met = "meets"
		}
		fmt.Fprintf(&b, "\nWinner: **%s** (%s %s; %d settings measured, %.0f s). Its limit: %s: %s\n\n", tuneKnobs(r.Winner), met,
			strings.Join(r.Objectives, ","), r.Measurements, r.Seconds, r.Limit.Limit, r.Limit.Evidence)
		fmt.Fprintf(&b, "- stopped: %s\n", r.Stopped)
		for _, c := range r.Earlier {
			fmt.Fprintf(&b, "- checked at an earlier stop, then went on above the winner: %s\n", c.Why)
		}
		switch c := r.Confirm; {
		case c != nil && c.Fewest != nil && c.Top != nil:
			fmt.Fprintf(&b, "- checked before the stop, %s against %s side by side in %d interleaved rounds: %s\n",
				tuneKnobs(c.Fewest.Knobs), tuneKnobs(c.Top.Knobs), c.Fewest.Runs, c.Why)
		case c != nil:
			fmt.Fprintf(&b, "- checked before the stop: %s\n", c.Why)
		}
		fmt.Fprintf(&b, "- workers = pool + a few: %s\n- min = max: %s\n", r.Rules.WorkersPool, r.Rules.MinMax)
		if tr.StartSide != nil && tr.WinnerSide != nil {
			s, w := tr.StartSide, tr.WinnerSide
			fmt.Fprintf(&b, "- measured again side by side at the end (%d interleaved rounds; what the claims compare): start %s %.0f/s (%.0f-%.0f), winner %s %.0f/s (%.0f-%.0f)\n",
				w.Runs, tuneKnobs(s.Knobs), s.Throughput.Median, s.Throughput.Min, s.Throughput.Max, tuneKnobs(w.Knobs), w.Throughput.Median, w.Throughput.Min, w.Throughput.Max)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// mdCell keeps a table cell on its line.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// tuneKnobs is a setting as the tuner prints it, WORKERS/POOL.
func tuneKnobs(k watch.Knobs) string { return fmt.Sprintf("%d/%d", k.Workers, k.Pool) }
