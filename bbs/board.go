package bbs

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"bbslab/commands"
)

// maxBody is the largest request body the board reads.
const maxBody = 64 << 10

// handleRoot leads to the board.
func (s *Server) handleRoot() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			s.renderError(w, r, http.StatusNotFound, "no such page: the board is at /bbs")
			return
		}
		http.Redirect(w, r, "/bbs", http.StatusFound)
	}
}

// handleBoard decodes a command request, waits for a worker, runs the
// command and renders its posts as HTML or JSON.
func (s *Server) handleBoard() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec := recordOf(w)
		// Every answer of /bbs, an error included, says what it did in the
		// database: 0 and 0 until a command has run, then what the command
		// did, also when it failed midway.
		// The keys are written in canonical form (X-Bbs-..., as net/http
		// sends them anyway) so that Set need not allocate a canonical copy.
		h := w.Header()
		h.Set("X-Bbs-Queries", "0")
		h.Set("X-Bbs-Acquires", "0")
		if r.Method != http.MethodGet && r.Method != http.MethodPost && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD, POST")
			s.renderError(w, r, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed; use GET or POST")
			return
		}
		in, err := readInput(w, r)
		if err != nil {
			s.fail(w, r, "", err)
			return
		}
		plan, err := s.planBoard(r)
		if err != nil {
			s.fail(w, r, in.Cmd, err)
			return
		}
		var z *sizer
		if plan.Size >= 0 {
			z = &sizer{ResponseWriter: w, size: plan.Size}
			defer z.finish()
			w = z
		}
		view, req, err := commands.Decode(in, s.opt.PageSize)
		if err != nil {
			s.fail(w, r, in.Cmd, err)
			return
		}

		release, queueWait, err := s.limit.waitForWorker(r.Context())
		rec.worker(view.Name(), queueWait, err)
		if err != nil {
			h.Set("Server-Timing", rec.taken().serverTiming())
			s.fail(w, r, view.Name(), err)
			return
		}
		// The worker is held until the page is written, as an execute
		// thread of the article's application server was: rendering and
		// writing are part of the work the limit bounds.
		defer release()
		if z != nil {
			defer z.finish() // before release: the worker is held until the page is written
		}
		if plan.Delay > 0 {
			// Added service time (delay), while the worker is held, as
			// the database at a distance's waits are.
			if err := sleep(r.Context(), plan.Delay); err != nil {
				s.fail(w, r, view.Name(), err)
				return
			}
		}
		if plan.Status != 0 {
			// An injected status (error_status, ?status=): the command
			// does not run.
			h.Set("Server-Timing", rec.taken().serverTiming())
			s.renderError(w, r, plan.Status, "status "+strconv.Itoa(plan.Status)+" injected by the board's behaviour knobs (error_status and error_share, or ?status=)")
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.opt.RequestTimeout)
		res, err := view.Run(ctx, s.store, req)
		cancel()

		rec.cost.Tally = res.Tally
		s.stats.record(view.Name(), res.Tally, err == nil)
		reset(h, "X-Bbs-Queries", strconv.Itoa(res.Tally.Queries))
		reset(h, "X-Bbs-Acquires", strconv.Itoa(res.Tally.Acquires))
		// The page's cost line shows these same figures: total is taken
		// here, once, just before rendering.
		c := rec.taken()
		h.Set("Server-Timing", c.serverTiming())
		if err != nil {
			s.fail(w, r, view.Name(), err)
			return
		}
		s.renderPosts(w, r, http.StatusOK, page{
			Command: view.Name(),
			N:       req.N,
			Posted:  res.Posted,
			Posts:   res.Posts,
			Cost:    c,
		})
	}
}

// reset sets the header key (canonical) to v, in the one-value slice an
// earlier Set made when there is one, so that a value set twice a request
// allocates once.
func reset(h http.Header, key, v string) {
	if vs := h[key]; len(vs) == 1 {
		vs[0] = v
		return
	}
	h[key] = []string{v}
}

// readInput collects the command parameters from the query string and, for
// POST, the form body (the body wins).
func readInput(w http.ResponseWriter, r *http.Request) (commands.Input, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return commands.Input{}, errTooLarge
		}
		return commands.Input{}, &commands.InputError{Field: "request", Problem: "cannot be parsed as a form: " + formProblem(err)}
	}
	f := r.Form
	in := commands.Input{Cmd: f.Get("cmd"), N: f.Get("n")}
	if v, ok := f["name"]; ok && len(v) > 0 {
		in.Name = &v[0]
	}
	if v, ok := f["message"]; ok && len(v) > 0 {
		in.Message = &v[0]
	}
	if _, ok := f["cmd"]; !ok && in.Message == nil {
		in.Cmd = commands.AllView.Name() // a plain GET /bbs shows the board
	}
	return in, nil
}

// formProblem says why a form could not be parsed without echoing input.
func formProblem(err error) string {
	if strings.Contains(err.Error(), "invalid semicolon separator") {
		return "semicolons are not parameter separators"
	}
	return "bad URL or form encoding"
}

// wantsJSON reports whether the client asked for JSON with format=json or
// an Accept header that prefers application/json.
func wantsJSON(r *http.Request) bool {
	var format string
	if r.Form != nil { // parsed by readInput: no need to parse the query again
		format = r.Form.Get("format")
	} else {
		format = r.URL.Query().Get("format")
	}
	switch format {
	case "json":
		return true
	case "html":
		return false
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "application/json":
			return true
		case "text/html", "*/*":
			return false
		}
	}
	return false
}
