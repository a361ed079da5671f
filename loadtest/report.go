package loadtest

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteSummary writes r's summary table (one line per label and a total),
// the generator's cost, the lines watched, if any, and the warnings to w.
// The lines watched say what the watcher saw (package watch: watch.Summary
// gives the server's readings and the profiles taken).
func WriteSummary(w io.Writer, r *Result, watched ...string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "label\tclients\trequests\terrors\tthroughput/s\tmean ms\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tmax ms\t")
	rows := r.Labels
	if len(rows) != 1 {
		rows = append(append([]Stats(nil), rows...), r.Total)
	}
	for _, s := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n",
			s.Label, s.Clients, s.Requests, s.Errors, s.Throughput, s.MeanMs, s.P50Ms, s.P90Ms, s.P99Ms, s.P999Ms, s.MaxMs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Total.ErrorKinds) > 0 {
		fmt.Fprintf(w, "errors: %s\n", ErrorKindsText(r.Total.ErrorKinds))
	}
	if r.Open != nil {
		fmt.Fprintf(w, "open model: %d arrivals, %d dropped at the in-flight cap\n", r.Open.Arrivals, r.Open.Dropped)
	}
	if r.Tool != "jmeter-jtl" {
		c := r.Cost
		model := string(r.Settings.Model)
		if r.Settings.TimerSlack > 0 {
			model += fmt.Sprintf(" (timer slack %v: latency includes up to that much lateness)", r.Settings.TimerSlack)
		}
		drain := ""
		if r.DrainSeconds > 0 {
			// Throughput divides by the window alone: say so when the run
			// went on past it.
			drain = fmt.Sprintf(", then %.2f s waiting for the requests in flight (throughput is per measured second)", r.DrainSeconds)
		}
		cpu, rss := "cpu not available on this OS", "peak rss not available on this OS"
		if c.CPUSeconds != nil && c.CPUPercent != nil {
			cpu = fmt.Sprintf("cpu %.2f s (%.1f%% of a core)", *c.CPUSeconds, *c.CPUPercent)
		}
		if c.PeakRSSBytes != nil {
			rss = fmt.Sprintf("peak rss %.1f MB", float64(*c.PeakRSSBytes)/(1<<20))
		}
		fmt.Fprintf(w, "measured %.1f s of %s model%s; generator: %s, %s, go memory %.1f MB, gc %d (max pause %.3f ms), goroutines %d, schedule lag max %.3f ms, timer lag p99 %.3f ms\n",
			r.MeasuredSeconds, model, drain, cpu, rss, float64(c.PeakGoBytes)/(1<<20),
			c.GCCycles, c.GCPauseMaxMs, c.Goroutines, c.ScheduleLagMaxMs, c.TimerLagP99Ms)
	}
	for _, l := range watched {
		fmt.Fprintln(w, l)
	}
	if t := r.Timeline; t != nil {
		steady := "no steady state found"
		if t.SteadyIndex >= 0 {
			steady = fmt.Sprintf("steady from #%d (p50 %.3f ms)", t.SteadyIndex, t.SteadyP50Ms)
		}
		warm := "every recorded request was warm-up"
		if t.WarmupIndex >= 0 {
			warm = fmt.Sprintf("warm-up ends at #%d", t.WarmupIndex)
		}
		fmt.Fprintf(w, "timeline: first %d requests, %s, %s; %d intervals of 100 ms\n", len(t.Requests), warm, steady, len(t.Intervals))
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "WARNING: %s\n", warn)
	}
	return nil
}

// ErrorKindsText lists error counts by kind, "timeout 3, status 1", in
// kind order.
func ErrorKindsText(m map[string]int64) string {
	var parts []string
	for _, k := range sortedKinds(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
