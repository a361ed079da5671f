package bbs

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"bbslab/behave"
	"bbslab/occupancy"
	"bbslab/truth"
)

// A record is what the board knows of one public request, for every report
// of it: when it began and ended, the command it named, and what it cost.
// Each figure in it was timed once, on occupancy's clock, where the wait
// happened (the worker queue by the limiter, the database's waits by the
// store, the request's start and end here in observe) and is copied here,
// never timed again: the X-BBS-* and Server-Timing headers, the page's cost
// line (or the JSON answer's cost), /admin/stats, /metrics, the access log
// and the truth record all read it.
//
// observe holds it in the recorder it hands down as the handler's
// ResponseWriter (the mux passes that on as it is), the board handler
// fills it (recordOf), and observe reports it when the request ends. It
// travels in the recorder rather than in the request's context: a context
// value would cost a copy of the request and a context per request
// (Request.WithContext).
type record struct {
	start, end    occupancy.Stamp // handler entry; the response written
	command       string          // "" when the request named no valid command
	reachedWorker bool            // waited for a worker, or got one
	cost          cost            // the queue wait, the command's tally, the total
}

// recordOf returns the record of the request answered through w, the
// recorder observe handed down, or a new one starting now when w is not
// one (the request was not served through observe).
func recordOf(w http.ResponseWriter) *record {
	if rec, ok := w.(*recorder); ok {
		return &rec.record
	}
	return &record{start: occupancy.Now()}
}

// worker records the command the request runs and its wait for a worker,
// as the limiter timed it; err is what waitForWorker returned.
func (rec *record) worker(cmd string, wait time.Duration, err error) {
	rec.command = cmd
	rec.cost.QueueWait = wait
	rec.reachedWorker = err == nil || wait > 0
}

// taken ends the cost's total now, just before the answer is rendered,
// and returns the cost.
func (rec *record) taken() *cost {
	rec.cost.Total = occupancy.Since(rec.start)
	return &rec.cost
}

// duration is the request from the handler's entry to its response
// written.
func (rec *record) duration() time.Duration { return rec.end.Sub(rec.start) }

// observe wraps the public handler: it counts and times every request for
// the metrics and writes the access log line when there is an access log.
// It holds the request at its entry and before its end while the board
// stalls (behaviour.go), and records it in the truth window when one is
// recording (truth.go).
func (s *Server) observe(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.behave.Wait()
		rec := &recorder{ResponseWriter: w, status: http.StatusOK, gate: s.behave}
		q := &rec.record
		q.start = occupancy.Now()
		var arrival time.Time
		recording := s.truth.On()
		if recording {
			arrival = truth.Arrival(r.Context())
			s.truth.Begin()
		}
		h.ServeHTTP(rec, r)
		s.behave.Wait()
		if !rec.wrote && r.Context().Err() != nil {
			rec.status = statusClientClosed // nothing was written: the client left
		}
		if recording && rec.wrote {
			// The response leaves now rather than when net/http
			// finishes the request: the end of its write is known.
			http.NewResponseController(w).Flush()
		}
		q.end = occupancy.Now()
		if recording {
			truth.Served(r.Context())
			start := q.start.Time()
			if arrival.IsZero() {
				arrival = start
			}
			s.truth.Record(truth.Request{Arrival: arrival, Start: start, End: q.end.Time(), Status: rec.status, Bytes: rec.bytes, Path: r.URL.Path})
		}
		s.metrics.request(q, rec.status)
		if s.accessLog != nil {
			s.accessLog.write(r, rec)
		}
	})
}

// recorder remembers the status and counts the body bytes of a response,
// and holds the request's record (allocated with it: one allocation for
// both).
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
	record record            // the request's, for the handler (recordOf)
	gate   *behave.Behaviour // holds writes during a stall
}

// WriteHeader records the status.
func (r *recorder) WriteHeader(code int) {
	r.gate.Wait()
	if !r.wrote {
		r.status = code
		r.wrote = true
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write counts the body bytes.
func (r *recorder) Write(b []byte) (int, error) {
	r.gate.Wait()
	r.wrote = true
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// accessLog writes one JSON line per public request in the format alp
// reads ("alp json"): time, method, uri, status, body_bytes and
// response_time in seconds, plus what the command did.
type accessLog struct {
	mu sync.Mutex
	w  io.Writer
}

// accessLine is one line of the access log.
type accessLine struct {
	Time         string  `json:"time"` // RFC 3339 with microseconds, UTC, when the request arrived
	Method       string  `json:"method"`
	URI          string  `json:"uri"`
	Status       int     `json:"status"`
	BodyBytes    int64   `json:"body_bytes"`
	ResponseTime float64 `json:"response_time"` // seconds
	Command      string  `json:"command"`       // "" when the request named no valid command
	Queries      int     `json:"queries"`
	Acquires     int     `json:"acquires"`
	QueueWait    float64 `json:"queue_wait"`      // seconds waiting for a worker
	AcquireWait  float64 `json:"acquire_wait"`    // seconds waiting for connections
	DBTime       float64 `json:"db_time"`         // seconds in SQL, network wait included
	NetworkWait  float64 `json:"db_network_wait"` // seconds of db_time waited on the network (db_latency)
}

// write logs the request r answered through rec.
func (a *accessLog) write(r *http.Request, rec *recorder) {
	q := &rec.record
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "&" in URIs readable
	err := enc.Encode(accessLine{
		Time:         q.start.Time().UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
		Method:       r.Method,
		URI:          r.RequestURI,
		Status:       rec.status,
		BodyBytes:    rec.bytes,
		ResponseTime: q.duration().Seconds(),
		Command:      q.command,
		Queries:      q.cost.Queries,
		Acquires:     q.cost.Acquires,
		QueueWait:    q.cost.QueueWait.Seconds(),
		AcquireWait:  q.cost.AcquireWait.Seconds(),
		DBTime:       q.cost.SQLTime.Seconds(),
		NetworkWait:  q.cost.NetworkWait.Seconds(),
	})
	if err != nil {
		return
	}
	a.mu.Lock()
	a.w.Write(buf.Bytes())
	a.mu.Unlock()
}
