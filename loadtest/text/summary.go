package text

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"bbslab/loadtest"
)

// WriteSummary writes r's summary to w as vegeta's text report, then what the
// lab adds and the watched lines. Unlike vegeta's, rate and throughput divide
// by the measured window, and latencies are of successful requests only.
func WriteSummary(w io.Writer, r *loadtest.Result, watched ...string) error {
	t := &r.Total
	dur := func(msv float64) string { return time.Duration(msv * 1e6).Round(time.Microsecond).String() }
	sec := func(s float64) string { return time.Duration(s * 1e9).Round(time.Millisecond).String() }
	rate := 0.0
	if r.MeasuredSeconds > 0 {
		rate = float64(t.Requests) / r.MeasuredSeconds
	}
	per := func(n int64) float64 {
		if t.Requests == 0 {
			return 0
		}
		return float64(n) / float64(t.Requests)
	}
	success := 0.0
	if t.Requests > 0 {
		success = 100 * float64(t.Successes) / float64(t.Requests)
	}
	// Status codes as vegeta lists them, "0:14  200:236".
	byLen := func(a, b string) int { return cmp.Compare(len(a), len(b)) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Requests\t[total, rate, throughput]\t%d, %.2f, %.2f\n", t.Requests, rate, t.Throughput)
	fmt.Fprintf(tw, "Duration\t[total, attack, wait]\t%s, %s, %s\n", sec(r.MeasuredSeconds+r.DrainSeconds), sec(r.MeasuredSeconds), sec(r.DrainSeconds))
	fmt.Fprintf(tw, "Latencies\t[min, mean, 50, 90, 95, 99, 99.9, max]\t%s, %s, %s, %s, %s, %s, %s, %s\n",
		dur(t.MinMs), dur(t.MeanMs), dur(t.P50Ms), dur(t.P90Ms), dur(t.P95Ms), dur(t.P99Ms), dur(t.P999Ms), dur(t.MaxMs))
	fmt.Fprintf(tw, "Bytes In\t[total, mean]\t%d, %.2f\n", t.Bytes, per(t.Bytes))
	fmt.Fprintf(tw, "Bytes Out\t[total, mean]\t%d, %.2f\n", t.SentBytes, per(t.SentBytes))
	fmt.Fprintf(tw, "Success\t[ratio]\t%.2f%%\n", success)
	fmt.Fprintf(tw, "Status Codes\t[code:count]\t%s\n", strings.Join(countsText(t.StatusCodes, byLen, "%s:%d"), "  "))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "Error Set:")
	mostFirst := func(a, b string) int { return cmp.Compare(t.ErrorSet[b], t.ErrorSet[a]) }
	for _, e := range countsText(t.ErrorSet, mostFirst, "%[2]d × %[1]s") {
		fmt.Fprintln(w, e)
	}
	if len(r.Labels) > 1 {
		fmt.Fprintln(w)
		if err := writeLabelTable(w, r); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	if len(r.Total.ErrorKinds) > 0 {
		fmt.Fprintf(w, "errors by kind: %s\n", ErrorKindsText(r.Total.ErrorKinds))
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
			drain = fmt.Sprintf(", then %.2f s waiting for the requests in flight (throughput is per measured second)", r.DrainSeconds)
		}
		cpu, rss := "cpu not available on this OS", "peak rss not available on this OS"
		if c.CPUSeconds != nil && c.CPUPercent != nil {
			cpu = fmt.Sprintf("cpu %.2f s (%.1f%% of a core)", *c.CPUSeconds, *c.CPUPercent)
		}
		if c.Cores != nil {
			cpu += ", " + c.Cores.Text()
		}
		if c.PeakRSSBytes != nil {
			rss = fmt.Sprintf("peak rss %.1f MB", float64(*c.PeakRSSBytes)/(1<<20))
		}
		fmt.Fprintf(w, "%d clients, measured %.1f s of %s model%s; generator: %s, %s, go memory %.1f MB, gc %d (max pause %.3f ms), goroutines %d, schedule lag max %.3f ms, timer lag p99 %.3f ms\n",
			r.Settings.Clients, r.MeasuredSeconds, model, drain, cpu, rss, float64(c.PeakGoBytes)/(1<<20),
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

// ErrorKindsText lists error counts by kind, "status 1, timeout 3".
func ErrorKindsText(m map[string]int64) string {
	return strings.Join(countsText(m, nil, "%s %d"), ", ")
}

// writeLabelTable writes one line per label and the total.
func writeLabelTable(w io.Writer, r *loadtest.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "label\tclients\trequests\terrors\tthroughput/s\tmean ms\tp50 ms\tp90 ms\tp95 ms\tp99 ms\tp99.9 ms\tmax ms\t")
	for _, s := range append(append([]loadtest.Stats(nil), r.Labels...), r.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n",
			s.Label, s.Clients, s.Requests, s.Errors, s.Throughput, s.MeanMs, s.P50Ms, s.P90Ms, s.P95Ms, s.P99Ms, s.P999Ms, s.MaxMs)
	}
	return tw.Flush()
}

// countsText formats m's keys and counts, sorted by key and then stably by by.
func countsText(m map[string]int64, by func(a, b string) int, format string) []string {
	keys := slices.Sorted(maps.Keys(m))
	if by != nil {
		slices.SortStableFunc(keys, by)
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf(format, k, m[k])
	}
	return out
}
