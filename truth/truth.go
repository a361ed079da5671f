// Package truth records what the board really served during a window a
// load tool names:
//
//	rec := truth.New(truth.DefaultLogCap)
//	ln = truth.Listener(ln, rec)      // stamps each request's arrival
//	rec.Start(time.Now(), time.Time{}, false)
//	// ... requests are served; the board calls rec.Record for each
//	rep, err := rec.Report(nil)
//
// It records every request's arrival at the listener, start of service and
// end of response write, its status and body bytes, and keeps
// HdrHistograms of the server-side times, exact counts per second and per
// status and, when asked, a log of every request. The Report is the JSON
// that loadtest grade holds a tool's results against (docs/truth.md).
//
// A report is written to a file only through a Dir: the one directory the
// operator named (truth_dir), by plain file name, never through a symbolic
// link, over an existing file only when asked, over the board's own files
// never. Recording off costs one atomic load per request (Recorder.On) and
// per read on a connection (Listener). The package imports nothing of the
// module: bbs hooks it in.
package truth

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Limits of one window.
const (
	// DefaultLogCap bounds the per-request log (about 100 bytes a line in
	// memory): requests past it are still counted, the log says how many
	// it dropped.
	DefaultLogCap = 1_000_000
	// MaxSeconds bounds the per-second list of a report (a day); requests
	// after it are still counted in the totals.
	MaxSeconds = 86_400
	// histogram range in microseconds: 1 µs to 1 h, 3 significant digits.
	histMin, histMax, histDigits = 1, 3_600_000_000, 3
)

// A Request is what the board served for one request.
type Request struct {
	Arrival time.Time // first bytes read on its connection (or Start when unknown)
	Start   time.Time // handler entry
	End     time.Time // response written
	Status  int
	Bytes   int64 // body bytes
	Path    string
}

// A Span is a time span, such as a stall.
type Span struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// A Recorder records the requests of one window at a time. Its methods are
// safe for concurrent use.
type Recorder struct {
	on       atomic.Bool
	inflight atomic.Int64 // Begin without Record yet
	logCap   int

	mu sync.Mutex
	w  *window // nil before the first Start
}

// window is what one window recorded.
type window struct {
	start, end  time.Time // end zero: open without an end
	stopped     bool
	requests    int64
	bytes       int64
	status      map[int]int64
	seconds     map[int64]*second
	server      *hdr.Histogram // microseconds
	service     *hdr.Histogram
	maxServer   time.Duration // exact
	maxService  time.Duration
	sumServer   time.Duration
	sumService  time.Duration
	log         bool
	lines       [][]line // chunks of lineChunk lines
	nlines      int
	paths       map[string]uint16 // index into pathList
	pathList    []string
	dropped     int64
	outsideSeen int64 // requests recorded while on but arriving outside the window
}

// A line is one request of the log, without pointers so that a log of a
// million lines costs the garbage collector nothing to scan.
type line struct {
	arrival, start, end int64 // unix ns
	bytes               int64
	status              int32
	path                uint16 // index into window.pathList
}

// lineChunk is how many lines a chunk of the log holds: the log grows by
// chunks rather than by copying.
const lineChunk = 1 << 14

// maxPaths bounds the distinct paths a log names; the rest are "(other)".
const maxPaths = 1000

type second struct {
	requests int64
	status   map[int]int64
}

// New returns a Recorder that keeps at most logCap log lines a window
// (0: DefaultLogCap).
func New(logCap int) *Recorder {
	if logCap <= 0 {
		logCap = DefaultLogCap
	}
	return &Recorder{logCap: logCap}
}

// On reports whether a window is recording: the one atomic load a request
// pays when recording is off.
func (r *Recorder) On() bool { return r.on.Load() }

// Start opens a new window from at (zero: now) until until (zero: until
// Stop), with a per-request log when log is set. The previous window's
// record is dropped.
func (r *Recorder) Start(at, until time.Time, log bool) error {
	now := time.Now()
	if at.IsZero() {
		at = now
	}
	if at.Before(now.Add(-time.Second)) {
		return fmt.Errorf("at: %s is in the past: only requests arriving while recording can count", at.UTC().Format(time.RFC3339Nano))
	}
	if !until.IsZero() && !until.After(at) {
		return errors.New("until: must be after the window's start")
	}
	r.mu.Lock()
	r.w = &window{
		start: at, end: until, log: log,
		status:  map[int]int64{},
		paths:   map[string]uint16{},
		seconds: map[int64]*second{},
		server:  hdr.New(histMin, histMax, histDigits),
		service: hdr.New(histMin, histMax, histDigits),
	}
	r.mu.Unlock()
	r.on.Store(true)
	return nil
}

// ErrNoWindow is returned when no window was started.
var ErrNoWindow = errors.New("no truth window: POST /admin/truth/start first")

// Stop closes the window at until (zero: now), waits at most wait for the
// requests that arrived before its end and are still being served, then
// stops recording.
func (r *Recorder) Stop(until time.Time, wait time.Duration) error {
	r.mu.Lock()
	w := r.w
	if w == nil {
		r.mu.Unlock()
		return ErrNoWindow
	}
	if until.IsZero() {
		until = time.Now()
	}
	if !until.After(w.start) {
		until = w.start
	}
	if w.end.IsZero() || until.Before(w.end) {
		w.end = until
	}
	w.stopped = true
	r.mu.Unlock()
	deadline := time.Now().Add(wait)
	for r.inflight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	r.on.Store(false)
	return nil
}

// Begin notes a request whose service started while recording (after On
// reported true); Record ends it. Stop waits for those still begun.
func (r *Recorder) Begin() { r.inflight.Add(1) }

// Record adds q if it arrived in the window; it ends a Begin.
func (r *Recorder) Record(q Request) {
	defer r.inflight.Add(-1)
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.w
	if w == nil || q.Arrival.Before(w.start) || (!w.end.IsZero() && !q.Arrival.Before(w.end)) {
		if w != nil {
			w.outsideSeen++
		}
		return
	}
	w.requests++
	w.bytes += q.Bytes
	w.status[q.Status]++
	sec := q.Arrival.Unix()
	s := w.seconds[sec]
	if s == nil {
		s = &second{status: map[int]int64{}}
		w.seconds[sec] = s
	}
	s.requests++
	s.status[q.Status]++
	server, service := q.End.Sub(q.Arrival), q.End.Sub(q.Start)
	w.server.RecordValue(micros(server))
	w.service.RecordValue(micros(service))
	w.sumServer += server
	w.sumService += service
	w.maxServer = max(w.maxServer, server)
	w.maxService = max(w.maxService, service)
	if w.log {
		if w.nlines < r.logCap {
			w.appendLine(q)
		} else {
			w.dropped++
		}
	}
}

// appendLine adds q to the log.
func (w *window) appendLine(q Request) {
	p, ok := w.paths[q.Path]
	if !ok {
		if len(w.pathList) >= maxPaths {
			q.Path = "(other)"
		}
		if p, ok = w.paths[q.Path]; !ok {
			p = uint16(len(w.pathList))
			w.pathList = append(w.pathList, q.Path)
			w.paths[q.Path] = p
		}
	}
	if w.nlines%lineChunk == 0 {
		w.lines = append(w.lines, make([]line, 0, lineChunk))
	}
	c := &w.lines[len(w.lines)-1]
	*c = append(*c, line{q.Arrival.UnixNano(), q.Start.UnixNano(), q.End.UnixNano(), q.Bytes, int32(q.Status), p})
	w.nlines++
}

// micros clamps d into the histogram's range in microseconds.
func micros(d time.Duration) int64 {
	return min(max(d.Microseconds(), histMin), histMax)
}

// statusKeys turns counts by status into counts by status as a string.
func statusKeys(m map[int]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[strconv.Itoa(k)] = v
	}
	return out
}
