package loadtest

import (
	"errors"
	"fmt"
	"slices"
)

// Merge combines the results of one run performed by several generator
// machines at the same time into one result: counts add up, histograms
// merge exactly, and per-second rows are aligned by their offset from each
// run's start (the same instant when the generators were given one
// Settings.StartAt). The merged window runs from the earliest measure_start
// to the latest end, and every throughput is the successes of all the
// generators over it: the sum of their throughputs when their windows
// coincide, less when they are skewed, since the load was whole only in
// their common window (Result.Overlap). Merge refuses windows that do not
// overlap at all (ErrDisjoint) unless o.AllowDisjoint, and warns of skews
// above the larger of SkewFloor and SkewShare of the window. Labels are
// matched by name. The merged Cost adds CPU seconds and takes the largest
// of the other figures; Generators keeps each machine's cost, with the
// use of its CPUs (Cost.Cores), which is its machine's alone and so is
// not merged. The
// Environment keeps the first result's generator and server, and lists
// every generator's machine (mergeEnvironments).
func Merge(results []*Result, o MergeOptions) (*Result, error) {
	if len(results) == 0 {
		return nil, errors.New("merge: no results")
	}
	overlap, overlapWarn, err := overlapOf(results, o.AllowDisjoint, o.Now)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	first := results[0]
	out := &Result{
		Schema: SchemaVersion, Tool: first.Tool, Name: first.Name, Settings: first.Settings,
		Start: first.Start, MeasureStart: first.MeasureStart, End: first.End,
	}
	out.Settings.Clients = 0
	out.Settings.JTL, out.Settings.Observers = nil, nil
	type acc struct {
		Tally
		clients int
	}
	labels := map[string]*acc{}
	var order []string
	for i, r := range results {
		if r.Total.Histogram == nil {
			return nil, fmt.Errorf("merge: result %d has no histogram", i+1)
		}
		out.Settings.Clients += r.Settings.Clients
		out.Interrupted = out.Interrupted || r.Interrupted
		if r.Start.Before(out.Start) {
			out.Start = r.Start
		}
		if r.MeasureStart.Before(out.MeasureStart) {
			out.MeasureStart = r.MeasureStart
		}
		if r.End.After(out.End) {
			out.End = r.End
		}
		out.MeasuredSeconds = max(out.MeasuredSeconds, r.MeasuredSeconds)
		for _, l := range r.Labels {
			a := labels[l.Label]
			if a == nil {
				a = &acc{Tally: *NewTally()}
				labels[l.Label] = a
				order = append(order, l.Label)
			}
			a.AddStats(&l)
			a.clients += l.Clients
		}
		for j, row := range r.Series {
			if j >= len(out.Series) {
				out.Series = append(out.Series, SecondRow{T: row.T, Warmup: row.Warmup, Histogram: NewHistogram()})
			}
			m := &out.Series[j]
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
				k := slices.IndexFunc(m.Labels, func(x LabelSecond) bool { return x.Label == l.Label })
				if k < 0 {
					m.Labels = append(m.Labels, LabelSecond{Label: l.Label, Histogram: NewHistogram()})
					k = len(m.Labels) - 1
				}
				ml := &m.Labels[k]
				ml.Successes += l.Successes
				ml.Errors += l.Errors
				ml.Throughput += l.Throughput
				ml.Histogram.Merge(l.Histogram)
			}
		}
		if r.Open != nil {
			if out.Open == nil {
				out.Open = &OpenStats{}
			}
			out.Open.Arrivals += r.Open.Arrivals
			out.Open.Dropped += r.Open.Dropped
		}
		c := r.Cost
		out.Generators = append(out.Generators, c)
		first := i == 0
		out.Cost.CPUSeconds = mergeOpt(first, out.Cost.CPUSeconds, c.CPUSeconds, func(a, b float64) float64 { return round3(a + b) })
		out.Cost.UserSeconds = mergeOpt(first, out.Cost.UserSeconds, c.UserSeconds, func(a, b float64) float64 { return round3(a + b) })
		out.Cost.SysSeconds = mergeOpt(first, out.Cost.SysSeconds, c.SysSeconds, func(a, b float64) float64 { return round3(a + b) })
		out.Cost.WallSeconds = max(out.Cost.WallSeconds, c.WallSeconds)
		out.Cost.CPUPercent = mergeOpt(first, out.Cost.CPUPercent, c.CPUPercent, func(a, b float64) float64 { return max(a, b) })
		out.Cost.PeakRSSBytes = mergeOpt(first, out.Cost.PeakRSSBytes, c.PeakRSSBytes, func(a, b int64) int64 { return max(a, b) })
		out.Cost.PeakGoBytes = max(out.Cost.PeakGoBytes, c.PeakGoBytes)
		out.Cost.GCCycles += c.GCCycles
		out.Cost.GCPauseMaxMs = max(out.Cost.GCPauseMaxMs, c.GCPauseMaxMs)
		out.Cost.Goroutines = max(out.Cost.Goroutines, c.Goroutines)
		out.Cost.ScheduleLagMaxMs = max(out.Cost.ScheduleLagMaxMs, c.ScheduleLagMaxMs)
		out.Cost.TimerLagMaxMs = max(out.Cost.TimerLagMaxMs, c.TimerLagMaxMs)
		out.Cost.TimerLagP99Ms = max(out.Cost.TimerLagP99Ms, c.TimerLagP99Ms)
		out.Cost.LateRequests += c.LateRequests
		if c.Bottleneck {
			out.Cost.Bottleneck = true
			for _, why := range c.Reasons {
				out.Cost.Reasons = append(out.Cost.Reasons, fmt.Sprintf("generator %d: %s", i+1, why))
			}
		}
	}
	for i := range out.Series {
		m := &out.Series[i]
		m.FillLatency()
	}
	seconds := out.MeasuredSeconds // the longest window, when some result has none
	if overlap != nil {
		seconds = out.End.Sub(out.MeasureStart).Seconds()
		out.MeasuredSeconds = round3(seconds)
	}
	out.Overlap = overlap
	all := NewTally()
	for _, name := range order {
		a := labels[name]
		out.Labels = append(out.Labels, a.Stats(name, a.clients, seconds))
		all.add(&a.Tally)
	}
	out.Total = all.Stats("TOTAL", out.Settings.Clients, seconds)
	out.Warnings = Warnings(out)
	if overlapWarn != "" {
		out.Warnings = append(out.Warnings, overlapWarn)
	}
	out.Warnings = append(out.Warnings, fmt.Sprintf("merged from %d generators", len(results)))
	var envWarns []string
	out.Environment, envWarns = mergeEnvironments(results)
	out.Warnings = append(out.Warnings, envWarns...)
	return out, nil
}

// mergeOpt merges a figure that a generator's OS may not give: the first
// generator's as it is, then op of the merged figure and the next one's;
// absent as soon as one generator's is, since a sum or a maximum over some
// of the generators would pass for all of them.
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
