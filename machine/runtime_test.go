package machine

import (
	"math"
	"runtime"
	"runtime/metrics"
	"testing"
)

func TestReadRuntime(t *testing.T) {
	before := ReadRuntime()
	runtime.GC()
	r := ReadRuntime()
	if len(r.Missing) != 0 {
		t.Errorf("ReadRuntime: missing %v; want every metric on this Go version", r.Missing)
	}
	if r.GCCycles <= before.GCCycles || r.GCForcedCycles <= before.GCForcedCycles {
		t.Errorf("GC cycles %d -> %d, forced %d -> %d across runtime.GC(); want both to grow", before.GCCycles, r.GCCycles, before.GCForcedCycles, r.GCForcedCycles)
	}
	if HistogramCount(r.GCPauses) < HistogramCount(before.GCPauses)+2 {
		t.Errorf("GC pauses %d -> %d across runtime.GC(); want at least 2 more (a cycle stops the world twice)", HistogramCount(before.GCPauses), HistogramCount(r.GCPauses))
	}
	if r.Goroutines < 1 || r.Threads < 1 || r.GOMAXPROCS != uint64(runtime.GOMAXPROCS(0)) || r.MemoryTotalBytes < r.MemoryReleasedBytes || r.HeapGoalBytes == 0 {
		t.Errorf("ReadRuntime = %+v; want goroutines, threads, GOMAXPROCS %d, memory and a heap goal", r, runtime.GOMAXPROCS(0))
	}
	if HistogramMaxNew(before.GCPauses, r.GCPauses) <= 0 {
		t.Errorf("HistogramMaxNew of the GC pauses across runtime.GC() = 0; want the longest new pause")
	}
}

func TestHistograms(t *testing.T) {
	inf := math.Inf(1)
	h := &metrics.Float64Histogram{Buckets: []float64{math.Inf(-1), 1, 2, 4, inf}, Counts: []uint64{1, 2, 0, 1}}
	if n := HistogramCount(h); n != 4 {
		t.Errorf("HistogramCount = %d; want 4", n)
	}
	// -Inf..1 counts at 1, 1..2 at 1.5 (twice), 4..+Inf at 4.
	if sum, n := HistogramSum(h); sum != 1+3+4 || n != 4 {
		t.Errorf("HistogramSum = %v, %d; want 8, 4", sum, n)
	}
	for _, tc := range []struct{ q, want float64 }{{0, 1}, {0.25, 1}, {0.5, 2}, {0.75, 2}, {1, 4}} {
		if got := HistogramQuantile(h, tc.q); got != tc.want {
			t.Errorf("HistogramQuantile(%v) = %v; want %v", tc.q, got, tc.want)
		}
	}
	if HistogramQuantile(nil, 0.5) != 0 || HistogramCount(nil) != 0 {
		t.Errorf("nil histogram: want 0")
	}
	later := &metrics.Float64Histogram{Buckets: h.Buckets, Counts: []uint64{1, 3, 1, 1}}
	if got := HistogramMaxNew(h, later); got != 4 {
		t.Errorf("HistogramMaxNew = %v; want 4 (bucket 2..4 grew)", got)
	}
	if got := HistogramMaxNew(h, h); got != 0 {
		t.Errorf("HistogramMaxNew(same) = %v; want 0", got)
	}
}
