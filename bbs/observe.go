package bbs

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"bbslab/behave"
	"bbslab/commands"
	"bbslab/truth"
)

// A note collects what the board handler learnt about one request, for the
// metrics and the access log written when the request ends.
type note struct {
	command       string
	reachedWorker bool          // waited for a worker, or got one
	queueWait     time.Duration // waiting for a worker
	tally         commands.Tally
}

// noteWorker records the command of the request answered through w and
// its wait for a worker; err is what waitForWorker returned. The note
// travels in the recorder that observe hands down as w (the mux passes it
// on as it is), not in the request's context: a context value would cost
// a copy of the request per request (Request.WithContext).
func noteWorker(w http.ResponseWriter, cmd string, wait time.Duration, err error) {
	if z, ok := w.(*sizer); ok {
		w = z.ResponseWriter
	}
	if rec, ok := w.(*recorder); ok {
		rec.note.command = cmd
		rec.note.queueWait = wait
		rec.note.reachedWorker = err == nil || wait > 0
	}
}

// noteTally records what the command of the request answered through w
// did in the database.
func noteTally(w http.ResponseWriter, t commands.Tally) {
	if z, ok := w.(*sizer); ok {
		w = z.ResponseWriter
	}
	if rec, ok := w.(*recorder); ok {
		rec.note.tally = t
	}
}

// observe wraps the public handler: it counts and times every request for
// the metrics and writes the access log line when there is an access log.
// It holds the request at its entry and before its end while the board
// stalls (behaviour.go), and records it in the truth window when one is
// recording (truth.go).
func (s *Server) observe(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.behave.Wait()
		start := time.Now()
		var arrival time.Time
		recording := s.truth.On()
		if recording {
			arrival = truth.Arrival(r.Context())
			s.truth.Begin()
		}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK, gate: s.behave}
		n := &rec.note
		h.ServeHTTP(rec, r)
		s.behave.Wait()
		if !rec.wrote && r.Context().Err() != nil {
			rec.status = statusClientClosed // nothing was written: the client left
		}
		if recording {
			if rec.wrote {
				// The response leaves now rather than when net/http
				// finishes the request: the end of its write is known.
				http.NewResponseController(w).Flush()
			}
			end := time.Now()
			truth.Served(r.Context())
			if arrival.IsZero() {
				arrival = start
			}
			s.truth.Record(truth.Request{Arrival: arrival, Start: start, End: end, Status: rec.status, Bytes: rec.bytes, Path: r.URL.Path})
		}
		d := time.Since(start)
		s.metrics.request(n, rec.status, d)
		if s.accessLog != nil {
			s.accessLog.write(r, start, d, rec, n)
		}
	})
}

// recorder remembers the status and counts the body bytes of a response,
// and carries the note of the request.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
	note   note              // what the board handler learnt (noteWorker, noteTally)
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

func (a *accessLog) write(r *http.Request, start time.Time, d time.Duration, rec *recorder, n *note) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "&" in URIs readable
	err := enc.Encode(accessLine{
		Time:         start.UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
		Method:       r.Method,
		URI:          r.RequestURI,
		Status:       rec.status,
		BodyBytes:    rec.bytes,
		ResponseTime: d.Seconds(),
		Command:      n.command,
		Queries:      n.tally.Queries,
		Acquires:     n.tally.Acquires,
		QueueWait:    n.queueWait.Seconds(),
		AcquireWait:  n.tally.AcquireWait.Seconds(),
		DBTime:       n.tally.DB.Seconds(),
		NetworkWait:  n.tally.Network.Seconds(),
	})
	if err != nil {
		return
	}
	a.mu.Lock()
	a.w.Write(buf.Bytes())
	a.mu.Unlock()
}
