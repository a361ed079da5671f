package machine

import (
	"math"
	"runtime/metrics"
)

// Runtime is one reading of the Go runtime's own metrics (runtime/metrics,
// which does not stop the world): the one place the board's /admin/stats,
// its GC settings log and the load generator's cost read them. Counters
// are totals since the process started; take differences for a span.
type Runtime struct {
	Goroutines     uint64 // /sched/goroutines:goroutines
	Threads        uint64 // /sched/threads/total:threads; cgo calls (SQLite) hold one each
	GOMAXPROCS     uint64 // /sched/gomaxprocs:threads
	CgoCalls       uint64 // /cgo/go-to-c-calls:calls
	GCCycles       uint64 // /gc/cycles/total:gc-cycles, completed
	GCForcedCycles uint64 // /gc/cycles/forced:gc-cycles, by runtime.GC or debug.FreeOSMemory

	HeapLiveBytes uint64 // /gc/heap/live:bytes
	HeapGoalBytes uint64 // /gc/heap/goal:bytes, where the next cycle should end
	// MemoryTotalBytes is all memory the runtime maps
	// (/memory/classes/total:bytes), MemoryReleasedBytes the part of it
	// given back to the OS (/memory/classes/heap/released:bytes): their
	// difference is what the Go runtime holds.
	MemoryTotalBytes    uint64
	MemoryReleasedBytes uint64

	GOGCPercent      int64 // /gc/gogc:percent; -1: the collector is off
	MemoryLimitBytes int64 // /gc/gomemlimit:bytes; math.MaxInt64: none

	// SchedLatencies is /sched/latencies:seconds, the time goroutines
	// spent runnable before they ran; GCPauses is
	// /sched/pauses/total/gc:seconds, the stop-the-world pauses for GC (a
	// cycle stops the world twice). Nil when this Go version lacks them.
	SchedLatencies *metrics.Float64Histogram
	GCPauses       *metrics.Float64Histogram

	// Missing names the metrics this Go version does not have; their
	// fields are zero (or nil).
	Missing []string
}

// runtimeMetrics are the names ReadRuntime reads, each with where its
// value goes.
var runtimeMetrics = []struct {
	name string
	u64  func(r *Runtime, v uint64)
	hist func(r *Runtime, h *metrics.Float64Histogram)
}{
	{name: "/sched/goroutines:goroutines", u64: func(r *Runtime, v uint64) { r.Goroutines = v }},
	{name: "/sched/threads/total:threads", u64: func(r *Runtime, v uint64) { r.Threads = v }},
	{name: "/sched/gomaxprocs:threads", u64: func(r *Runtime, v uint64) { r.GOMAXPROCS = v }},
	{name: "/cgo/go-to-c-calls:calls", u64: func(r *Runtime, v uint64) { r.CgoCalls = v }},
	{name: "/gc/cycles/total:gc-cycles", u64: func(r *Runtime, v uint64) { r.GCCycles = v }},
	{name: "/gc/cycles/forced:gc-cycles", u64: func(r *Runtime, v uint64) { r.GCForcedCycles = v }},
	{name: "/gc/heap/live:bytes", u64: func(r *Runtime, v uint64) { r.HeapLiveBytes = v }},
	{name: "/gc/heap/goal:bytes", u64: func(r *Runtime, v uint64) { r.HeapGoalBytes = v }},
	{name: "/memory/classes/total:bytes", u64: func(r *Runtime, v uint64) { r.MemoryTotalBytes = v }},
	{name: "/memory/classes/heap/released:bytes", u64: func(r *Runtime, v uint64) { r.MemoryReleasedBytes = v }},
	// The runtime stores -1 (off) and math.MaxInt64 (no limit) as uint64.
	{name: "/gc/gogc:percent", u64: func(r *Runtime, v uint64) { r.GOGCPercent = int64(v) }},
	{name: "/gc/gomemlimit:bytes", u64: func(r *Runtime, v uint64) { r.MemoryLimitBytes = int64(v) }},
	{name: "/sched/latencies:seconds", hist: func(r *Runtime, h *metrics.Float64Histogram) { r.SchedLatencies = h }},
	{name: "/sched/pauses/total/gc:seconds", hist: func(r *Runtime, h *metrics.Float64Histogram) { r.GCPauses = h }},
}

// ReadRuntime reads the runtime's metrics now.
func ReadRuntime() Runtime {
	samples := make([]metrics.Sample, len(runtimeMetrics))
	for i, m := range runtimeMetrics {
		samples[i].Name = m.name
	}
	metrics.Read(samples)
	var r Runtime
	for i, m := range runtimeMetrics {
		v := samples[i].Value
		switch {
		case m.u64 != nil && v.Kind() == metrics.KindUint64:
			m.u64(&r, v.Uint64())
		case m.hist != nil && v.Kind() == metrics.KindFloat64Histogram:
			m.hist(&r, v.Float64Histogram())
		default: // KindBad: a metric this Go version does not have
			r.Missing = append(r.Missing, m.name)
		}
	}
	return r
}

// HistogramCount returns the number of values in h (0 for nil).
func HistogramCount(h *metrics.Float64Histogram) uint64 {
	var n uint64
	if h != nil {
		for _, c := range h.Counts {
			n += c
		}
	}
	return n
}

// HistogramSum estimates the sum of h's values, each bucket counted at its
// midpoint (at its finite bound when the other is infinite), and returns it
// with the number of values.
func HistogramSum(h *metrics.Float64Histogram) (sum float64, n uint64) {
	if h == nil {
		return 0, 0
	}
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		mid := (lo + hi) / 2
		switch {
		case math.IsInf(lo, -1):
			mid = hi
		case math.IsInf(hi, 1):
			mid = lo
		}
		sum += mid * float64(c)
		n += c
	}
	return sum, n
}

// HistogramQuantile returns the upper bound of the bucket of h holding its
// q-th quantile (the lower bound when the upper one is +Inf); 0 when h is
// nil or empty. Counts[i] counts values in [Buckets[i], Buckets[i+1]).
func HistogramQuantile(h *metrics.Float64Histogram, q float64) float64 {
	total := HistogramCount(h)
	if total == 0 {
		return 0
	}
	rank := max(uint64(math.Ceil(q*float64(total))), 1)
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

// HistogramMaxNew returns the upper bound of the highest bucket whose count
// grew from before to after, two readings of the same histogram (its lower
// bound when the upper one is +Inf): the largest value recorded between
// them, such as the longest GC pause of a run. 0 when none grew or either
// is nil.
func HistogramMaxNew(before, after *metrics.Float64Histogram) float64 {
	if before == nil || after == nil || len(before.Counts) != len(after.Counts) {
		return 0
	}
	for i := len(after.Counts) - 1; i >= 0; i-- {
		if after.Counts[i] > before.Counts[i] {
			if hi := after.Buckets[i+1]; !math.IsInf(hi, 1) {
				return hi
			}
			return after.Buckets[i]
		}
	}
	return 0
}
