package truth

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Version is the report format's version: fields are only ever added.
const Version = 1

// A Report is the truth of one window, the JSON of GET /admin/truth
// (docs/truth.md).
type Report struct {
	Version   int              `json:"version"`
	Window    Window           `json:"window"`
	Requests  int64            `json:"requests"` // arrived in the window and served
	Bytes     int64            `json:"bytes"`    // their body bytes
	Status    map[string]int64 `json:"status"`
	Seconds   []Second         `json:"seconds"`
	ServerMS  Summary          `json:"server_ms"`  // arrival -> response written
	ServiceMS Summary          `json:"service_ms"` // handler entry -> response written
	Stalls    []Span           `json:"stalls"`
	Log       bool             `json:"log"`
	// Added to the format's first fields:
	LogLines         int64  `json:"log_lines"`                   // lines GET /admin/truth/log has
	LogDropped       int64  `json:"log_dropped"`                 // lines past the log's cap, counted but not logged
	LogCap           int    `json:"log_cap"`                     // the cap
	SecondsTruncated bool   `json:"seconds_truncated,omitempty"` // the window has more than MaxSeconds seconds
	Outside          int64  `json:"outside"`                     // requests served while recording that arrived outside the window
	Note             string `json:"note,omitempty"`              // why the report is empty: no window was started
}

// Window is the span a report covers.
type Window struct {
	Start string `json:"start"` // RFC 3339 with nanoseconds, UTC
	End   string `json:"end"`   // "" while open without an end
	Open  bool   `json:"open"`
}

// A Second counts the requests that arrived in one second (UTC).
type Second struct {
	T        time.Time        `json:"t"`
	Requests int64            `json:"requests"`
	Status   map[string]int64 `json:"status"`
}

// A Summary is a distribution of times in milliseconds.
type Summary struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"` // exact
}

func summary(h *hdr.Histogram, sum, maxD time.Duration) Summary {
	n := h.TotalCount()
	if n == 0 {
		return Summary{}
	}
	maxMS := float64(maxD) / 1e6
	// A percentile is its bucket's highest equivalent value (within 0.1 %),
	// never above the exact maximum.
	q := func(p float64) float64 { return min(float64(h.ValueAtQuantile(p))/1000, maxMS) }
	return Summary{
		Count: n,
		Mean:  math.Round(float64(sum)/float64(n)) / 1e6,
		P50:   q(50), P90: q(90), P95: q(95), P99: q(99), P999: q(99.9),
		Max: maxMS,
	}
}

// Report returns the truth of the current window, with stalls(from, to)
// giving the stalls that overlapped it (nil: none). Before the first
// window it returns an empty report whose Note says so.
func (r *Recorder) Report(stalls func(from, to time.Time) []Span) (Report, error) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.w
	if w == nil {
		return Report{Version: Version, Status: map[string]int64{}, Seconds: []Second{}, Stalls: []Span{}, LogCap: r.logCap, Note: ErrNoWindow.Error()}, nil
	}
	open := !w.stopped && (w.end.IsZero() || now.Before(w.end))
	to := w.end
	if to.IsZero() || (open && now.Before(to)) {
		to = now
	}
	rep := Report{
		Version:    Version,
		Window:     Window{Start: w.start.UTC().Format(time.RFC3339Nano), Open: open},
		Requests:   w.requests,
		Bytes:      w.bytes,
		Status:     statusKeys(w.status),
		ServerMS:   summary(w.server, w.sumServer, w.maxServer),
		ServiceMS:  summary(w.service, w.sumService, w.maxService),
		Stalls:     []Span{},
		Log:        w.log,
		LogLines:   int64(w.nlines),
		LogDropped: w.dropped,
		LogCap:     r.logCap,
		Outside:    w.outsideSeen,
	}
	if !w.end.IsZero() && !open {
		rep.Window.End = w.end.UTC().Format(time.RFC3339Nano)
	}
	first, last := w.start.Unix(), to.Add(-time.Nanosecond).Unix()
	if last < first {
		last = first
	}
	if last-first+1 > MaxSeconds {
		last, rep.SecondsTruncated = first+MaxSeconds-1, true
	}
	rep.Seconds = make([]Second, 0, last-first+1)
	for t := first; t <= last; t++ {
		s := Second{T: time.Unix(t, 0).UTC(), Status: map[string]int64{}}
		if c := w.seconds[t]; c != nil {
			s.Requests, s.Status = c.requests, statusKeys(c.status)
		}
		rep.Seconds = append(rep.Seconds, s)
	}
	if stalls != nil {
		for _, s := range stalls(w.start, to) {
			rep.Stalls = append(rep.Stalls, Span{Start: s.Start.UTC(), End: s.End.UTC()})
		}
	}
	return rep, nil
}

// logLine is one line of the per-request log.
type logLine struct {
	Arrival time.Time `json:"arrival"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Status  int       `json:"status"`
	Bytes   int64     `json:"bytes"`
	Path    string    `json:"path"`
}

// WriteLog writes the window's per-request log as JSON lines, in the order
// the requests ended. It writes nothing when the window keeps no log or
// no window was started.
func (r *Recorder) WriteLog(out io.Writer) error {
	r.mu.Lock()
	if r.w == nil {
		r.mu.Unlock()
		return nil
	}
	// Copy the chunks' headers: lines already written never change, and
	// appends go past them, so they are safe to read unlocked.
	chunks := make([][]line, len(r.w.lines))
	copy(chunks, r.w.lines)
	paths := r.w.pathList[:len(r.w.pathList):len(r.w.pathList)]
	r.mu.Unlock()
	bw := bufio.NewWriter(out)
	enc := json.NewEncoder(bw)
	t := func(ns int64) time.Time { return time.Unix(0, ns).UTC() }
	for _, c := range chunks {
		for _, l := range c {
			if err := enc.Encode(logLine{t(l.arrival), t(l.start), t(l.end), int(l.status), l.bytes, paths[l.path]}); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
