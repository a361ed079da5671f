package bbs

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"bbslab/behave"
)

// The board's behaviour on demand (package behave): the stall gate holds
// the public listener's work at two points, the handler's entry (observe)
// and every write of a response and its end (recorder), so that during a
// stall no request starts and no response goes out, as when the process
// is paused. Connections are still accepted and request bytes read
// meanwhile (a paused process's kernel completes the handshakes and
// buffers the bytes), so that each request's arrival is known (truth). The delay, the injected status and the size apply to
// /bbs (handleBoard and planBoard).

// planBoard draws what a /bbs request does beyond the board's work, from
// the knobs in force and the request's ?delay=, ?status= and ?size=. With
// no knob set and none of those parameters it returns the plan that
// changes nothing at the cost of one atomic load and three map lookups.
func (s *Server) planBoard(r *http.Request) (behave.Plan, error) {
	set, on := s.behave.Current()
	f := r.Form
	if !on && f["delay"] == nil && f["status"] == nil && f["size"] == nil {
		return behave.Plan{Size: -1}, nil
	}
	o, err := behave.ParseOverride(f)
	if err != nil {
		return behave.Plan{Size: -1}, err
	}
	return set.Plan(o), nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sizer holds a response and writes it with exactly size body bytes: the
// page cut to size, or padded with spaces after its end (HTML and JSON
// still parse then).
type sizer struct {
	http.ResponseWriter
	size int64
	code int
	buf  bytes.Buffer
	done bool
}

// WriteHeader keeps the status for finish.
func (z *sizer) WriteHeader(code int) {
	if z.code == 0 {
		z.code = code
	}
}

// Write keeps the body for finish.
func (z *sizer) Write(b []byte) (int, error) {
	if z.code == 0 {
		z.code = http.StatusOK
	}
	return z.buf.Write(b)
}

// Flush does nothing: the response goes out whole at finish.
func (z *sizer) Flush() {}

// spaces pads sized responses.
var spaces = bytes.Repeat([]byte{' '}, 32<<10)

// finish writes the held response with its size, once.
func (z *sizer) finish() {
	if z.done {
		return
	}
	z.done = true
	if z.code == 0 {
		return // nothing was answered: the client left
	}
	z.Header().Set("Content-Length", strconv.FormatInt(z.size, 10))
	z.ResponseWriter.WriteHeader(z.code)
	body := z.buf.Bytes()
	if int64(len(body)) > z.size {
		body = body[:z.size]
	}
	if _, err := z.ResponseWriter.Write(body); err != nil {
		return
	}
	for left := z.size - int64(len(body)); left > 0; {
		n := min(left, int64(len(spaces)))
		if _, err := z.ResponseWriter.Write(spaces[:n]); err != nil {
			return
		}
		left -= n
	}
}

// BehaviourStats is the JSON of /admin/behaviour: the knobs in force by
// their keys, and the stalls of the last ten minutes.
type BehaviourStats struct {
	StallEvery  string         `json:"stall_every"`
	StallFor    string         `json:"stall_for"`
	Delay       string         `json:"delay"`
	ErrorStatus int            `json:"error_status"`
	ErrorShare  float64        `json:"error_share"`
	Size        int64          `json:"size"`
	Stalls      []behave.Stall `json:"stalls"`
}

// maxStallsShown bounds the stalls a report lists.
const maxStallsShown = 10_000

func (s *Server) behaviourStats() BehaviourStats {
	set, _ := s.behave.Current()
	now := time.Now()
	st := s.behave.Stalls(now.Add(-10*time.Minute), now, 100)
	if st == nil {
		st = []behave.Stall{}
	}
	for i := range st {
		st[i].Start, st[i].End = st[i].Start.UTC(), st[i].End.UTC()
	}
	return BehaviourStats{
		StallEvery: set.StallEvery.String(), StallFor: set.StallFor.String(), Delay: set.Delay.String(),
		ErrorStatus: set.ErrorStatus, ErrorShare: set.ErrorShare, Size: set.Size, Stalls: st,
	}
}

// handleBehaviour answers GET with the knobs in force and sets them on
// POST: each key given (stall_every, stall_for, delay, error_status,
// error_share, size) changes, the others stay; stall_now=D stalls the
// board for D from now, besides any schedule.
func (s *Server) handleBehaviour(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		writeJSON(w, http.StatusOK, s.behaviourStats())
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		writeJSON(w, http.StatusMethodNotAllowed, jsonError{Status: 405, Error: "/admin/behaviour: GET reads the knobs, POST sets them"})
		return
	}
	badRequest := func(msg string) {
		writeJSON(w, http.StatusBadRequest, jsonError{Status: 400, Error: msg})
	}
	if err := r.ParseForm(); err != nil {
		badRequest("the form cannot be parsed: " + formProblem(err))
		return
	}
	set, _ := s.behave.Current()
	given := false
	for _, k := range behave.Keys {
		if v, ok := r.Form[k]; ok && len(v) > 0 {
			if err := set.Set(k, v[0]); err != nil {
				badRequest(err.Error())
				return
			}
			given = true
		}
	}
	var stallNow time.Duration
	if v := r.Form.Get("stall_now"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > behave.MaxStallFor {
			badRequest(fmt.Sprintf("stall_now = %q: must be a duration above 0s and at most %v", v, behave.MaxStallFor))
			return
		}
		stallNow, given = d, true
	}
	if !given {
		badRequest("give at least one of stall_every, stall_for, delay, error_status, error_share, size, stall_now")
		return
	}
	if err := set.Validate(); err != nil {
		badRequest(err.Error())
		return
	}
	s.behave.Set(set)
	if stallNow > 0 {
		s.behave.Trigger(stallNow)
	}
	s.log.Info("behaviour set", "stall_every", set.StallEvery.String(), "stall_for", set.StallFor.String(), "delay", set.Delay.String(),
		"error_status", set.ErrorStatus, "error_share", set.ErrorShare, "size", set.Size, "stall_now", stallNow.String())
	writeJSON(w, http.StatusOK, s.behaviourStats())
}
