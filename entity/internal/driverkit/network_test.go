package driverkit

import (
	"math"
	"testing"
	"time"

	"bbslab/entity"
)

// TestJitterDraws draws many waits with a fixed seed: they stay within
// latency ± jitter, spread over the whole of it around the latency, repeat
// with the same seed, and never fall below 0.
func TestJitterDraws(t *testing.T) {
	const lat, jit = 10 * time.Millisecond, 4 * time.Millisecond
	d := NewNetwork(entity.Distance{Latency: lat, Jitter: jit, Seed: 42})
	const n = 20000
	var sum float64
	lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
	draws := make([]time.Duration, n)
	for i := range n {
		w := d.draw()
		draws[i] = w
		sum += float64(w)
		lo, hi = min(lo, w), max(hi, w)
	}
	if lo < lat-jit || hi > lat+jit {
		t.Errorf("draws span %v..%v; want within %v..%v", lo, hi, lat-jit, lat+jit)
	}
	if lo > lat-jit+jit/20 || hi < lat+jit-jit/20 {
		t.Errorf("draws span %v..%v; want nearly all of %v..%v", lo, hi, lat-jit, lat+jit)
	}
	if mean := time.Duration(sum / n); mean < lat-jit/20 || mean > lat+jit/20 {
		t.Errorf("mean draw %v; want about %v", mean, lat)
	}
	again := NewNetwork(entity.Distance{Latency: lat, Jitter: jit, Seed: 42})
	for i := range 100 {
		if w := again.draw(); w != draws[i] {
			t.Fatalf("draw %d with the same seed = %v; want %v", i, w, draws[i])
		}
	}
	wide := NewNetwork(entity.Distance{Latency: time.Millisecond, Jitter: 5 * time.Millisecond, Seed: 1})
	zeros := 0
	for range 1000 {
		w := wide.draw()
		if w < 0 {
			t.Fatalf("draw = %v; want never below 0", w)
		}
		if w == 0 {
			zeros++
		}
	}
	if zeros == 0 {
		t.Errorf("jitter above latency drew no 0 in 1000; want the negative draws clamped to 0")
	}
	if NewNetwork(entity.Distance{}) != nil {
		t.Errorf("NewNetwork(zero) is not nil; want nothing added")
	}
}

// TestSetLatency sets the wait while the network runs: negative values
// count as 0, and a nil Network has no wait.
func TestSetLatency(t *testing.T) {
	n := NewNetwork(entity.Distance{Adjustable: true})
	if n == nil {
		t.Fatal("NewNetwork(Adjustable) = nil; want a Network to set")
	}
	n.SetLatency(3*time.Millisecond, time.Millisecond)
	if l, j := n.Latency(); l != 3*time.Millisecond || j != time.Millisecond {
		t.Errorf("after SetLatency(3ms, 1ms) Latency() = %v, %v; want 3ms, 1ms", l, j)
	}
	n.SetLatency(-time.Millisecond, -time.Millisecond)
	if l, j := n.Latency(); l != 0 || j != 0 {
		t.Errorf("after SetLatency(-1ms, -1ms) Latency() = %v, %v; want 0, 0", l, j)
	}
	var none *Network
	if l, j := none.Latency(); l != 0 || j != 0 {
		t.Errorf("nil Network's Latency() = %v, %v; want 0, 0", l, j)
	}
}
