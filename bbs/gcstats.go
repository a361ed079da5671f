package bbs

import (
	"math"
	rmetrics "runtime/metrics"
)

// GCStats is the garbage collector part of /admin/stats: how many cycles
// ran, how long the world stopped for them, and the settings in force. A
// latency outlier that lines up with a GC pause (seed 003) shows here.
type GCStats struct {
	Cycles       uint64     `json:"cycles"`        // completed GC cycles (/gc/cycles/total:gc-cycles)
	ForcedCycles uint64     `json:"forced_cycles"` // of them, forced by runtime.GC or debug.FreeOSMemory
	Pauses       PauseStats `json:"pauses"`        // stop-the-world pauses for GC
	// HeapGoalBytes is the heap size at which the next cycle should end.
	HeapGoalBytes uint64 `json:"heap_goal_bytes"`
	// GOGCPercent is the GC percent in force (-1: off).
	GOGCPercent int64 `json:"gogc_percent"`
	// MemoryLimitBytes is the soft memory limit in force (math.MaxInt64: none).
	MemoryLimitBytes int64 `json:"memory_limit_bytes"`
}

// PauseStats summarises the distribution of GC stop-the-world pauses since
// start, read from the runtime's histogram /sched/pauses/total/gc:seconds.
// A GC cycle stops the world twice (sweep termination, mark termination),
// so Count is about twice the cycles. The quantiles are the upper bounds of
// the histogram buckets they fall in (the runtime's buckets are within a few
// percent of each other); they are 0 when no pause was recorded.
type PauseStats struct {
	Count      uint64  `json:"count"`
	P50Seconds float64 `json:"p50_seconds"`
	P99Seconds float64 `json:"p99_seconds"`
	MaxSeconds float64 `json:"max_seconds"`
}

// The runtime/metrics names ReadGCStats reads.
const (
	metricPauses   = "/sched/pauses/total/gc:seconds"
	metricCycles   = "/gc/cycles/total:gc-cycles"
	metricForced   = "/gc/cycles/forced:gc-cycles"
	metricHeapGoal = "/gc/heap/goal:bytes"
	metricGOGC     = "/gc/gogc:percent"
	metricMemLimit = "/gc/gomemlimit:bytes"
)

// ReadGCStats reads the GC metrics and settings now.
func ReadGCStats() GCStats {
	samples := []rmetrics.Sample{
		{Name: metricPauses}, {Name: metricCycles}, {Name: metricForced},
		{Name: metricHeapGoal}, {Name: metricGOGC}, {Name: metricMemLimit},
	}
	rmetrics.Read(samples)
	var out GCStats
	for _, s := range samples {
		switch s.Value.Kind() {
		case rmetrics.KindFloat64Histogram:
			if s.Name == metricPauses {
				out.Pauses = pauseStats(s.Value.Float64Histogram())
			}
		case rmetrics.KindUint64:
			v := s.Value.Uint64()
			switch s.Name {
			case metricCycles:
				out.Cycles = v
			case metricForced:
				out.ForcedCycles = v
			case metricHeapGoal:
				out.HeapGoalBytes = v
			case metricGOGC:
				out.GOGCPercent = int64(v) // the runtime stores -1 (off) as a uint64
			case metricMemLimit:
				out.MemoryLimitBytes = int64(v)
			}
		}
		// KindBad: a metric this Go version does not have; leave it zero.
	}
	return out
}

// pauseStats computes the count, median, 99th percentile and maximum of a
// runtime histogram. Counts[i] counts values in [Buckets[i], Buckets[i+1]).
func pauseStats(h *rmetrics.Float64Histogram) PauseStats {
	var out PauseStats
	if h == nil {
		return out
	}
	for _, c := range h.Counts {
		out.Count += c
	}
	if out.Count == 0 {
		return out
	}
	out.P50Seconds = quantile(h, out.Count, 0.50)
	out.P99Seconds = quantile(h, out.Count, 0.99)
	out.MaxSeconds = quantile(h, out.Count, 1)
	return out
}

// quantile returns the upper bound of the bucket holding the q-th quantile
// of total values (the lower bound when the upper one is +Inf).
func quantile(h *rmetrics.Float64Histogram, total uint64, q float64) float64 {
	rank := uint64(math.Ceil(q * float64(total)))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.Counts {
		seen += c
		if seen >= rank {
			if hi := h.Buckets[i+1]; !math.IsInf(hi, 1) {
				return hi
			}
			return h.Buckets[i]
		}
	}
	return h.Buckets[len(h.Buckets)-1]
}
