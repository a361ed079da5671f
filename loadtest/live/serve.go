package live

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Handler serves / the page, /events the frames as server-sent events (from
// Last-Event-ID on) and /frames.json the history as a JSON array.
func (h *Hub) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		if err := writePage(&b, page()); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b.Bytes())
	})
	mux.HandleFunc("GET /events", h.serveEvents)
	mux.HandleFunc("GET /frames.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(h.framesJSON())
	})
	return mux
}

// serveEvents streams frames until the request ends or the hub closes.
func (h *Hub) serveEvents(w http.ResponseWriter, r *http.Request) {
	var lastID uint64
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		id, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			http.Error(w, fmt.Sprintf("Last-Event-ID %q is not a frame number", v), http.StatusBadRequest)
			return
		}
		lastID = id
	}
	rc := http.NewResponseController(w)
	s, past, ok := h.subscribe(lastID)
	if !ok {
		http.Error(w, "the dashboard's experiment has ended: no more frames (see /frames.json)", http.StatusGone)
		return
	}
	defer h.unsubscribe(s)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	for _, e := range past {
		if err := writeEvent(w, e); err != nil {
			return
		}
	}
	if err := rc.Flush(); err != nil {
		return
	}
	for {
		select {
		case e := <-s.ch:
			if writeEvent(w, e) != nil || rc.Flush() != nil {
				return
			}
			continue
		case <-s.done:
		case <-r.Context().Done():
		}
		// The buffered frames still go out, or the page would miss the end.
		sendBuffered(w, rc, s)
		return
	}
}

func sendBuffered(w http.ResponseWriter, rc *http.ResponseController, s *subscriber) {
	for {
		select {
		case e := <-s.ch:
			if writeEvent(w, e) != nil {
				return
			}
		default:
			rc.Flush()
			return
		}
	}
}

func writeEvent(w io.Writer, e entry) error {
	_, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", e.seq, e.data)
	return err
}

// A Server is the dashboard listening on one address.
type Server struct {
	URL  string // the page's address, e.g. http://127.0.0.1:41234/
	done chan struct{}
	err  error
}

// Wait waits for the server to shut down and returns why if not its context.
func (s *Server) Wait() error {
	<-s.done
	return s.err
}

// Serve serves h on addr, a loopback address, until ctx ends; then call Wait.
func Serve(ctx context.Context, addr string, h *Hub) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("live: dashboard address %q: want host:port, e.g. 127.0.0.1:0: %w", addr, err)
	}
	if host != "localhost" && !net.ParseIP(host).IsLoopback() { // a nil IP is no loopback
		return nil, fmt.Errorf("live: dashboard address %q is not loopback (127.0.0.1, ::1, localhost): the dashboard has no authentication, so it serves this machine only", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("live: listen for the dashboard on %q: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           h.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// No WriteTimeout: a stream lasts as long as the experiment.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	s := &Server{URL: "http://" + ln.Addr().String() + "/", done: make(chan struct{})}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	go func() {
		defer close(s.done)
		select {
		case err := <-serveErr:
			s.err = fmt.Errorf("live: dashboard server: %w", err)
			return
		case <-ctx.Done():
		}
		// Streams end with ctx (BaseContext), so Shutdown is quick.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			s.err = fmt.Errorf("live: dashboard shutdown: %w", err)
		}
		if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) && s.err == nil {
			s.err = fmt.Errorf("live: dashboard server: %w", err)
		}
	}()
	return s, nil
}
