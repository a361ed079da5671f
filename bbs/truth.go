package bbs

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"bbslab/truth"
)

// The server's truth (package truth): for a window started and stopped
// here, observe records every public request served, from its arrival at
// the listener to the end of its response (docs/truth.md).

// stallSpans lists the stalls that overlapped [from, to) for a report.
func (s *Server) stallSpans(from, to time.Time) []truth.Span {
	st := s.behave.Stalls(from, to, maxStallsShown)
	out := make([]truth.Span, len(st))
	for i, x := range st {
		out[i] = truth.Span{Start: x.Start, End: x.End}
	}
	return out
}

// truthError answers err of the recorder: 404 when no window was started,
// else 400 naming the parameter.
func truthError(w http.ResponseWriter, err error) {
	code := http.StatusBadRequest
	if errors.Is(err, truth.ErrNoWindow) {
		code = http.StatusNotFound
	}
	writeJSON(w, code, jsonError{Status: code, Error: err.Error()})
}

// clockParam reads an RFC 3339 time from q's key, the zero time when absent.
func clockParam(r *http.Request, key string) (time.Time, error) {
	v := r.URL.Query().Get(key)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return t, errors.New(key + ": " + strconv.Quote(v) + " is not an RFC 3339 time such as 2026-12-02T07:20:00Z")
	}
	return t, nil
}

// handleTruthStart opens a window: from now, or ?at= until ?until= (RFC
// 3339), with the per-request log when ?log=1 or truth_log is set.
func (s *Server) handleTruthStart(w http.ResponseWriter, r *http.Request) {
	at, err := clockParam(r, "at")
	if err != nil {
		truthError(w, err)
		return
	}
	until, err := clockParam(r, "until")
	if err != nil {
		truthError(w, err)
		return
	}
	log := s.opt.TruthLog
	if v := r.URL.Query().Get("log"); v != "" {
		if log, err = strconv.ParseBool(v); err != nil {
			truthError(w, errors.New("log: "+strconv.Quote(v)+" is not 1 or 0"))
			return
		}
	}
	if err := s.truth.Start(at, until, log); err != nil {
		truthError(w, err)
		return
	}
	s.log.Info("truth window started", "at", at, "until", until, "log", log)
	s.writeTruth(w)
}

// stopWait bounds how long a stop waits for the window's requests still
// being served.
const stopWait = 5 * time.Second

// handleTruthStop closes the window (now, or at ?until=), waits for the
// requests that arrived in it to end, answers its truth and writes it to
// the file truthTarget names, if any. A file that may not be written is
// refused before the window is touched: it stays open, nothing is written.
func (s *Server) handleTruthStop(w http.ResponseWriter, r *http.Request) {
	until, err := clockParam(r, "until")
	if err != nil {
		truthError(w, err)
		return
	}
	file, replace, err := s.truthTarget(r)
	if err != nil {
		s.fileError(w, file, err)
		return
	}
	if err := s.truth.Stop(until, stopWait); err != nil {
		truthError(w, err)
		return
	}
	rep, err := s.truth.Report(s.stallSpans)
	if err != nil {
		truthError(w, err)
		return
	}
	if file != "" {
		if err := s.opt.TruthDir.Write(file, rep, replace); err != nil {
			s.fileError(w, file, err)
			return
		}
	}
	s.log.Info("truth window stopped", "requests", rep.Requests, "file", file)
	writeJSON(w, http.StatusOK, rep)
}

// errNoTruthDir refuses a file when the board was given no truth_dir.
var errNoTruthDir = fmt.Errorf("file: this board writes no files: start it with -truth-dir DIR (or truth_dir in its config) and name a file in it, e.g. ?file=truth.json: %w", truth.ErrRefused)

// truthTarget returns the file a stop writes in truth_dir and whether it
// may replace one: ?file=NAME, replacing an existing file only with
// ?replace=1; else truth_file, which every stop replaces; "" for none. It
// returns an error (truth.ErrRefused for the request's fault) when the
// file may not be written.
func (s *Server) truthTarget(r *http.Request) (string, bool, error) {
	q := r.URL.Query()
	name, replace := s.opt.TruthFile, true
	if q.Has("file") {
		name, replace = q.Get("file"), false
		if v := q.Get("replace"); v != "" {
			var err error
			if replace, err = strconv.ParseBool(v); err != nil {
				return name, false, fmt.Errorf("replace: %s is not 1 or 0: %w", strconv.Quote(v), truth.ErrRefused)
			}
		}
	} else if name == "" {
		return "", false, nil
	}
	if s.opt.TruthDir == nil {
		return name, false, errNoTruthDir
	}
	return name, replace, s.opt.TruthDir.Check(name, replace)
}

// fileError answers a truth file that was refused (400, the reason) or
// could not be written (500, the reason logged).
func (s *Server) fileError(w http.ResponseWriter, file string, err error) {
	if errors.Is(err, truth.ErrRefused) {
		writeJSON(w, http.StatusBadRequest, jsonError{Status: http.StatusBadRequest, Error: err.Error()})
		return
	}
	s.log.Error("truth file", "file", file, "err", err)
	writeJSON(w, http.StatusInternalServerError, jsonError{Status: http.StatusInternalServerError, Error: "file: cannot write " + strconv.Quote(file) + " in truth_dir"})
}

// handleTruth answers the truth of the current (or last) window.
func (s *Server) handleTruth(w http.ResponseWriter, r *http.Request) { s.writeTruth(w) }

func (s *Server) writeTruth(w http.ResponseWriter) {
	rep, err := s.truth.Report(s.stallSpans)
	if err != nil {
		truthError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// handleTruthLog answers the window's per-request log as JSON lines.
func (s *Server) handleTruthLog(w http.ResponseWriter, r *http.Request) {
	rep, err := s.truth.Report(nil)
	if err != nil {
		truthError(w, err)
		return
	}
	if !rep.Log && rep.Note == "" {
		writeJSON(w, http.StatusConflict, jsonError{Status: 409, Error: "log: this window keeps no per-request log; start it with POST /admin/truth/start?log=1 (or truth_log = true)"})
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	if err := s.truth.WriteLog(w); err != nil {
		s.log.Warn("truth log", "err", err)
	}
}
