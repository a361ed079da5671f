package bbs

import (
	rmetrics "runtime/metrics"

	"bbslab/machine"
)

// GCStats is the garbage collector part of /admin/stats: how many cycles
// ran, how long the world stopped for them, and the settings in force. A
// latency outlier that lines up with a GC pause (the real-time Java article
// traces outliers to the collector) shows here.
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

// ReadGCStats reads the GC metrics and settings now (machine.ReadRuntime).
func ReadGCStats() GCStats {
	m := machine.ReadRuntime()
	return GCStats{
		Cycles:           m.GCCycles,
		ForcedCycles:     m.GCForcedCycles,
		Pauses:           pauseStats(m.GCPauses),
		HeapGoalBytes:    m.HeapGoalBytes,
		GOGCPercent:      m.GOGCPercent,
		MemoryLimitBytes: m.MemoryLimitBytes,
	}
}

// pauseStats computes the count, median, 99th percentile and maximum of a
// runtime histogram of pauses.
func pauseStats(h *rmetrics.Float64Histogram) PauseStats {
	n := machine.HistogramCount(h)
	if n == 0 {
		return PauseStats{}
	}
	return PauseStats{
		Count:      n,
		P50Seconds: machine.HistogramQuantile(h, 0.50),
		P99Seconds: machine.HistogramQuantile(h, 0.99),
		MaxSeconds: machine.HistogramQuantile(h, 1),
	}
}
