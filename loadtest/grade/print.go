package grade

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// writeTruth prints the truth's window in one line.
func writeTruth(w io.Writer, t *Truth) {
	if t.Start.IsZero() {
		fmt.Fprintln(w, "truth: no window opened")
		return
	}
	end := "open"
	if !t.End.IsZero() {
		end = t.End.Format(time.RFC3339)
	}
	fmt.Fprintf(w, "truth: %s to %s, %d requests served (%s), %d stalls\n",
		t.Start.Format(time.RFC3339), end, t.Requests, statusList(t.Status), len(t.Stalls))
}

// writeGrading prints one tool's grade.
func writeGrading(w io.Writer, g *Grading) {
	r := g.Report
	fmt.Fprintf(w, "\n== %s (%s)\n", r.Name, r.Format)
	if g.Placed != "" {
		fmt.Fprintf(w, "placed: %s\n", g.Placed)
	}
	fmt.Fprintf(w, "requests: sent %d, responses %d", r.Sent, r.Responses)
	if len(r.Status) > 0 {
		fmt.Fprintf(w, " (%s)", statusList(r.Status))
	}
	fmt.Fprintf(w, ", no response %d; the server served %d in the tool's span", r.Sent-r.Responses, g.Served)
	switch d := r.Responses - g.Served; {
	case d < 0:
		fmt.Fprintf(w, ": %d served that the tool did not count\n", -d)
	case d > 0:
		fmt.Fprintf(w, ": the tool counted %d the server did not serve in its span\n", d)
	default:
		fmt.Fprintln(w)
	}
	if s := r.Span.Seconds(); s > 0 {
		fmt.Fprintf(w, "throughput: tool %.1f/s over %.1f s", float64(r.Responses)/s, s)
		if g.ServedSecs > 0 {
			fmt.Fprintf(w, ", server %.1f/s over %d s", float64(g.Served)/float64(g.ServedSecs), g.ServedSecs)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-22s %9s %9s %9s %9s %9s %9s\n", "latency ms", "p50", "p90", "p95", "p99", "p99.9", "max")
	row := func(name string, p Percentiles) {
		fmt.Fprintf(w, "  %-20s %9s %9s %9s %9s %9s %9s\n", name, num(p.P50), num(p.P90), num(p.P95), num(p.P99), num(p.P999), num(p.Max))
	}
	tool := "tool"
	if r.Correction != nil {
		tool = "tool, corrected"
	}
	row(tool, r.Lat)
	row("server", g.Server)
	if len(g.Stalls) > 0 {
		row("stall's requests", g.Expected)
		fmt.Fprintf(w, "stalls: %d, %.3f s in the tool's span; at the tool's rate outside them (%.1f/s), %.0f requests were due in them\n",
			len(g.Stalls), g.StallTime.Seconds(), g.Rate, g.Due)
		if g.ServerInStalls >= 0 {
			fmt.Fprintf(w, "the stalls' requests: the server's log has %d arriving in them and %d held at or above %.0f ms", g.ServerInStalls, g.ServerTail, g.TailAt)
			switch {
			case g.SentInStalls >= 0:
				fmt.Fprintf(w, "; the tool sent %d in them (%s)", g.SentInStalls, share(g.SentInStalls, g.ServerInStalls))
			case g.TailSeen >= 0:
				fmt.Fprintf(w, "; the tool has %d at or above %.0f ms (%s)", g.TailSeen, g.TailAt, share(g.TailSeen, g.ServerTail))
			}
			fmt.Fprintln(w)
		}
	}
	if r.Correction != nil {
		for _, l := range r.Correction.describe(r) {
			fmt.Fprintf(w, "corrected: %s\n", l)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, c := range g.Checks {
		fmt.Fprintf(w, "  %-11s %s: %s\n", c.Verdict, c.Name, c.Text)
	}
}

// num prints a figure, "-" when unknown.
func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// statusList prints status counts as "200: 4990, 503: 10".
func statusList[K cmp.Ordered](m map[K]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%v: %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// share prints tool's difference from the server's count as a share of it.
func share(tool, server int64) string {
	if server == 0 {
		return fmt.Sprintf("%+d", tool)
	}
	return fmt.Sprintf("%+.1f %% of the server's", 100*float64(tool-server)/float64(server))
}
