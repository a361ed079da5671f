package merge

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/text"
)

// Results combines the results of one run made by several generators into
// one, whose throughputs are all the successes over the merged window,
// from the earliest measure_start to the latest end (see the package doc).
func Results(results []*loadtest.Result, o Options) (*loadtest.Result, error) {
	if len(results) == 0 {
		return nil, errors.New("merge: no results")
	}
	overlap, overlapWarn, err := overlapOf(results, o.AllowDisjoint, o.Now)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	first := results[0]
	out := &loadtest.Result{
		Schema: loadtest.SchemaVersion, Tool: first.Tool, Name: first.Name, Settings: first.Settings,
		Start: first.Start, MeasureStart: first.MeasureStart, End: first.End,
	}
	out.Settings.Clients = 0
	out.Settings.JTL, out.Settings.Observers = nil, nil
	var labels loadtest.Tallies
	clients := map[string]int{} // by label
	for i, r := range results {
		if r.Total.Histogram == nil {
			return nil, fmt.Errorf("merge: result %d has no histogram", i+1)
		}
		addWindow(out, r)
		for _, l := range r.Labels {
			labels.Of(l.Label).AddStats(&l)
			clients[l.Label] += l.Clients
		}
		out.Series = addSeries(out.Series, r.Series)
		if r.Open != nil {
			if out.Open == nil {
				out.Open = &loadtest.OpenStats{}
			}
			out.Open.Arrivals += r.Open.Arrivals
			out.Open.Dropped += r.Open.Dropped
		}
		out.Generators = append(out.Generators, r.Cost)
		addCost(&out.Cost, r.Cost, i)
	}
	for i := range out.Series {
		out.Series[i].FillLatency()
	}
	seconds := out.MeasuredSeconds // the longest window, when some result has none
	if overlap != nil {
		seconds = out.End.Sub(out.MeasureStart).Seconds()
		out.MeasuredSeconds = loadtest.Round3(seconds)
	}
	out.Overlap = overlap
	out.Labels, out.Total = labels.Stats(func(l string) int { return clients[l] }, out.Settings.Clients, seconds)
	out.Warnings = loadtest.Warnings(out)
	if overlapWarn != "" {
		out.Warnings = append(out.Warnings, overlapWarn)
	}
	out.Warnings = append(out.Warnings, fmt.Sprintf("merged from %d generators", len(results)))
	var envWarns []string
	out.Environment, envWarns = environments(results)
	out.Warnings = append(out.Warnings, envWarns...)
	return out, nil
}

// addWindow widens out's window and counts to take in r's.
func addWindow(out, r *loadtest.Result) {
	out.Settings.Clients += r.Settings.Clients
	out.Interrupted = out.Interrupted || r.Interrupted
	out.Start = slices.MinFunc([]time.Time{out.Start, r.Start}, time.Time.Compare)
	out.MeasureStart = slices.MinFunc([]time.Time{out.MeasureStart, r.MeasureStart}, time.Time.Compare)
	out.End = slices.MaxFunc([]time.Time{out.End, r.End}, time.Time.Compare)
	out.MeasuredSeconds = max(out.MeasuredSeconds, r.MeasuredSeconds)
}

// addSeries adds one generator's per-second rows to the merged ones, row
// by row from the start, all but their latency figures.
func addSeries(merged, rows []loadtest.SecondRow) []loadtest.SecondRow {
	for j, row := range rows {
		if j >= len(merged) {
			merged = append(merged, loadtest.SecondRow{T: row.T, Warmup: row.Warmup, Histogram: loadtest.NewHistogram()})
		}
		m := &merged[j]
		m.Successes += row.Successes
		m.Errors += row.Errors
		for k, n := range row.ErrorKinds {
			if m.ErrorKinds == nil {
				m.ErrorKinds = map[string]int64{}
			}
			m.ErrorKinds[k] += n
		}
		m.Bytes += row.Bytes
		m.Throughput += row.Throughput
		m.Histogram.Merge(row.Histogram)
		for _, l := range row.Labels {
			k := slices.IndexFunc(m.Labels, func(x loadtest.LabelSecond) bool { return x.Label == l.Label })
			if k < 0 {
				m.Labels = append(m.Labels, loadtest.LabelSecond{Label: l.Label, Histogram: loadtest.NewHistogram()})
				k = len(m.Labels) - 1
			}
			ml := &m.Labels[k]
			ml.Successes += l.Successes
			ml.Errors += l.Errors
			ml.Throughput += l.Throughput
			ml.Histogram.Merge(l.Histogram)
		}
	}
	return merged
}

// addCost adds the cost c of generator i (from 0) to the merged cost out:
// CPU seconds and counts add up, the other figures take the largest.
func addCost(out *loadtest.Cost, c loadtest.Cost, i int) {
	first := i == 0
	sum := func(a, b float64) float64 { return loadtest.Round3(a + b) }
	out.CPUSeconds = mergeOpt(first, out.CPUSeconds, c.CPUSeconds, sum)
	out.UserSeconds = mergeOpt(first, out.UserSeconds, c.UserSeconds, sum)
	out.SysSeconds = mergeOpt(first, out.SysSeconds, c.SysSeconds, sum)
	out.WallSeconds = max(out.WallSeconds, c.WallSeconds)
	out.CPUPercent = mergeOpt(first, out.CPUPercent, c.CPUPercent, func(a, b float64) float64 { return max(a, b) })
	out.PeakRSSBytes = mergeOpt(first, out.PeakRSSBytes, c.PeakRSSBytes, func(a, b int64) int64 { return max(a, b) })
	out.PeakGoBytes = max(out.PeakGoBytes, c.PeakGoBytes)
	out.GCCycles += c.GCCycles
	out.GCPauseMaxMs = max(out.GCPauseMaxMs, c.GCPauseMaxMs)
	out.Goroutines = max(out.Goroutines, c.Goroutines)
	out.ScheduleLagMaxMs = max(out.ScheduleLagMaxMs, c.ScheduleLagMaxMs)
	out.TimerLagMaxMs = max(out.TimerLagMaxMs, c.TimerLagMaxMs)
	out.TimerLagP99Ms = max(out.TimerLagP99Ms, c.TimerLagP99Ms)
	out.LateRequests += c.LateRequests
	if c.Bottleneck {
		out.Bottleneck = true
		for _, why := range c.Reasons {
			out.Reasons = append(out.Reasons, fmt.Sprintf("generator %d: %s", i+1, why))
		}
	}
}

// mergeOpt merges a figure that a generator's OS may not give: absent as
// soon as one generator's is, lest a part pass for the whole.
func mergeOpt[T any](first bool, acc, next *T, op func(a, b T) T) *T {
	if first {
		return next
	}
	if acc == nil || next == nil {
		return nil
	}
	v := op(*acc, *next)
	return &v
}

// environments keeps the first result's generator and server, every
// generator's machine, and a warning for each different server.
func environments(results []*loadtest.Result) (*loadtest.Environment, []string) {
	var out *loadtest.Environment
	var warns []string
	for i, r := range results {
		e := r.Environment
		if e == nil || e.Generator == nil {
			continue
		}
		if out == nil {
			out = &loadtest.Environment{Generator: e.Generator}
		}
		out.Generators = append(out.Generators, *e.Generator)
		if e.Server == nil {
			continue
		}
		if out.Server == nil {
			out.Server = e.Server
		} else if d := text.ServerDifferences(out, e); len(d) > 0 {
			warns = append(warns, fmt.Sprintf("merge: generator %d read a different server (%s)", i+1, strings.Join(d, "; ")))
		}
	}
	return out, warns
}

// ms converts a duration to milliseconds, rounded to the microsecond.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
