package loadtest

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func TestSteadyState(t *testing.T) {
	flat := func(n int, v float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	// 1 ms plus 19 ms halving every 10 requests: within 1.5 × 1 ms from
	// request 60 on (1.30 ms); requests 50-59 take 1.59 ms.
	decay := make([]float64, 200)
	for i := range decay {
		decay[i] = 1 + 19/float64(int(1)<<min(i/10, 30))
	}
	// A steady state whose window medians wander past 1.5 × the median
	// but stay inside its own 10th-90th percentile band.
	noisy := make([]float64, 200)
	for i := range noisy {
		noisy[i] = []float64{0.1, 0.12, 0.15, 0.5, 0.6}[(i*7+i/20)%5]
		if i/20%2 == 1 && i%2 == 0 {
			noisy[i] = 0.6
		}
	}
	tests := []struct {
		name string
		lat  []float64
		lo   int
		hi   int
	}{
		{"steady from the start", flat(100, 1), 0, 0},
		{"30 slow then fast", append(flat(30, 20), flat(170, 1)...), 28, 34},
		{"decaying", decay, 58, 64},
		{"too few", flat(39, 1), -1, -1},
		{"a burst at 60-74", append(append(flat(60, 1), flat(15, 30)...), flat(125, 1)...), 74, 76},
		{"within 1.5 ×", append(flat(50, 0.1), flat(50, 0.14)...), 0, 0},
		{"noisy steady state", noisy, 0, 0},
	}
	for _, tt := range tests {
		got, _ := SteadyState(tt.lat, SteadyWindow, SteadyTolerance)
		if got < tt.lo || got > tt.hi {
			t.Errorf("SteadyState(%s) = %d; want %d..%d", tt.name, got, tt.lo, tt.hi)
		}
	}
}

func TestTimelineCapturesFirstRequestsAndIntervals(t *testing.T) {
	// The first 20 requests take 10 ms, the rest are immediate.
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 20 {
			time.Sleep(10 * time.Millisecond)
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL}}, Clients: 1, Think: time.Millisecond,
		Warmup: 100 * time.Millisecond, MaxRequests: 150, TimelineRequests: 100})
	tl := res.Timeline
	if tl == nil {
		t.Fatal("no timeline")
	}
	if len(tl.Requests) != 100 {
		t.Fatalf("%d timeline requests; want the first 100", len(tl.Requests))
	}
	var fast []float64
	for i, rq := range tl.Requests {
		if rq.I != i || rq.Error != "" || (i > 0 && rq.StartMs < tl.Requests[i-1].StartMs) {
			t.Fatalf("request %d: %+v after %+v; want index %d, in sending order, no error", i, rq, tl.Requests[max(i-1, 0)], i)
		}
		if i < 20 && rq.LatencyMs < 10 {
			t.Errorf("request %d latency %.3f ms; want >= 10 ms for the first 20", i, rq.LatencyMs)
		}
		if i >= 20 {
			fast = append(fast, rq.LatencyMs)
		}
	}
	if m := Median(fast); m >= 5 {
		t.Errorf("median latency after request 20 is %.3f ms; want the fast answers", m)
	}
	// The warm-up (100 ms of 10 ms requests) ends within the slow ones.
	if w := tl.WarmupIndex; w < 1 || w > 20 || tl.Requests[w].StartMs < 100 || tl.Requests[w-1].StartMs >= 100 {
		t.Errorf("warm-up index %d; want the first request due after 100 ms", w)
	}
	// The first fast requests jitter more (more so under -race on a busy
	// machine), which may move the point a little later.
	if tl.SteadyIndex < 18 || tl.SteadyIndex > 40 {
		t.Errorf("steady index %d; want near 20", tl.SteadyIndex)
	}
	var ok int64
	first := -1
	for i, iv := range tl.Intervals {
		ok += iv.Successes
		if i > 0 && iv.T <= tl.Intervals[i-1].T {
			t.Errorf("interval %d ends at %.3f s, not after %.3f s", i, iv.T, tl.Intervals[i-1].T)
		}
		if first < 0 && iv.Successes > 0 {
			first = i
		}
	}
	if ok != n.Load() {
		t.Errorf("intervals count %d successes; the server answered %d", ok, n.Load())
	}
	if first < 0 || tl.Intervals[first].P50Ms < 10 {
		t.Errorf("intervals %+v; want the first one with answers to hold the slow ones (p50 >= 10 ms)", tl.Intervals[:min(3, len(tl.Intervals))])
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	if err := res.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResult(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Timeline == nil || len(back.Timeline.Requests) != len(tl.Requests) || len(back.Timeline.Intervals) != len(tl.Intervals) {
		t.Errorf("timeline read back %+v; want the %d requests and %d intervals written", back.Timeline, len(tl.Requests), len(tl.Intervals))
	}
}
