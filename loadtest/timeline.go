package loadtest

import (
	"slices"
	"sync/atomic"
	"time"
)

// MaxTimeline bounds Settings.TimelineRequests; TimelineStep is one Intervals row (up to 10 min).
const (
	MaxTimeline          = 1_000_000
	TimelineStep         = 100 * time.Millisecond
	maxTimelineIntervals = 6000
)

// Steady-state detector parameters (see SteadyState).
const (
	SteadyWindow    = 20
	SteadyTolerance = 1.5
)

// A Timeline shows how a run started: its first requests and its latency per 100 ms.
type Timeline struct {
	// Requests are the first requests in sending order.
	Requests []TimelineRequest `json:"requests"`
	// WarmupIndex is the first request due after the warm-up (-1: all were warm-up).
	WarmupIndex int `json:"warmup_index"`
	// SteadyIndex is SteadyState's point in the successes (-1: none), SteadyP50Ms its reference.
	SteadyIndex int     `json:"steady_index"`
	SteadyP50Ms float64 `json:"steady_p50_ms,omitempty"`
	// Truncated says the run went on past the last interval.
	Intervals []TimelineInterval `json:"intervals"`
	Truncated bool               `json:"truncated,omitempty"`
}

// TimelineRequest is one request of a Timeline, timed from the run's start.
type TimelineRequest struct {
	I         int     `json:"i"`
	StartMs   float64 `json:"start_ms"`
	LatencyMs float64 `json:"latency_ms"`
	Error     string  `json:"error,omitempty"`
}

// TimelineInterval is one 100 ms row of a Timeline, ending at T seconds.
type TimelineInterval struct {
	T         float64 `json:"t"`
	Successes int64   `json:"successes"`
	Errors    int64   `json:"errors"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	MaxMs     float64 `json:"max_ms"`
}

// tlSlot is one recorded request, written by the client that drew it.
type tlSlot struct {
	start, lat time.Duration
	kind       ErrorKind
	done       bool
}

type timelineRec struct {
	seq       atomic.Int64
	slots     []tlSlot
	hist      *Histogram // scratch for the interval rows
	intervals []TimelineInterval
	truncated bool
}

func newTimelineRec(n int) *timelineRec {
	return &timelineRec{slots: make([]tlSlot, n), hist: NewHistogram()}
}

// next draws the index of a request being sent; -1 past the first N.
func (t *timelineRec) next() int {
	if t == nil {
		return -1
	}
	i := t.seq.Add(1) - 1
	if i >= int64(len(t.slots)) {
		return -1
	}
	return int(i)
}

func (t *timelineRec) flush(r *recorder, start, now time.Time) {
	ok, errs := r.takeInterval(t.hist)
	if len(t.intervals) >= maxTimelineIntervals {
		t.truncated = t.truncated || ok+errs > 0
		return
	}
	el := now.Sub(start).Seconds()
	if len(t.intervals) > 0 && el-t.intervals[len(t.intervals)-1].T < 0.001 && ok+errs == 0 {
		return
	}
	h := t.hist
	t.intervals = append(t.intervals, TimelineInterval{
		T: Round3(el), Successes: ok, Errors: errs,
		P50Ms: ms(h.Quantile(0.5)), P99Ms: ms(h.Quantile(0.99)), MaxMs: ms(h.Max()),
	})
}

func (t *timelineRec) result(warmup time.Duration) *Timeline {
	tl := &Timeline{Intervals: t.intervals, Truncated: t.truncated, WarmupIndex: -1, SteadyIndex: -1}
	var lats []float64
	var idx []int
	for i, s := range t.slots {
		if !s.done {
			continue
		}
		tr := TimelineRequest{I: i, StartMs: ms(s.start), LatencyMs: ms(s.lat), Error: s.kind.String()}
		if s.kind == KindOK {
			lats = append(lats, tr.LatencyMs)
			idx = append(idx, i)
		}
		if tl.WarmupIndex < 0 && (warmup == 0 || s.start >= warmup) {
			tl.WarmupIndex = i
		}
		tl.Requests = append(tl.Requests, tr)
	}
	if warmup == 0 {
		tl.WarmupIndex = 0
	}
	if k, ref := SteadyState(lats, SteadyWindow, SteadyTolerance); k >= 0 {
		tl.SteadyIndex, tl.SteadyP50Ms = idx[k], Round3(ref)
	}
	return tl
}

// SteadyState finds where latencies (ms, request order) settle: the centre of the first
// window from which every window's median lies within a factor tol of the reference (the
// second half's median) or in its 10th-90th percentile band. It returns that and the
// reference; -1 when the last window is not steady or there are under 2 × window latencies.
func SteadyState(latMs []float64, window int, tol float64) (int, float64) {
	n := len(latMs)
	if window < 1 || n < 2*window {
		return -1, 0
	}
	// The upper middle value, not Median's lower one.
	tail := slices.Sorted(slices.Values(latMs[n/2:]))
	ref := tail[len(tail)/2]
	lo := min(ref/tol, tail[len(tail)/10])
	hi := max(ref*tol, tail[len(tail)*9/10])
	buf := make([]float64, window)
	for j := n - window; j >= 0; j-- {
		copy(buf, latMs[j:j+window])
		slices.Sort(buf)
		m := buf[window/2]
		if m < lo || m > hi {
			if j == n-window {
				return -1, ref
			}
			return j + 1 + window/2, ref
		}
	}
	return 0, ref
}
