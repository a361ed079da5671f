package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"bbslab/bbs"
	"bbslab/config"
	"bbslab/truth"
)

// listeners are the board's public listener and, when admin_addr is
// set, its admin listener.
type listeners struct {
	pub, adm net.Listener
}

// listen opens the listeners cfg names; without tcp_nodelay the public one
// keeps Nagle's algorithm on (latency experiments).
func listen(cfg config.Config) (*listeners, error) {
	pub, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	ls := &listeners{pub: pub}
	if !cfg.TCPNoDelay {
		ls.pub = bbs.NoDelayListener(pub, false)
	}
	if cfg.AdminAddr != "" {
		if ls.adm, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			pub.Close()
			return nil, fmt.Errorf("listen on admin address %s: %w", cfg.AdminAddr, err)
		}
	}
	return ls, nil
}

func (ls *listeners) close() {
	ls.pub.Close()
	if ls.adm != nil {
		ls.adm.Close()
	}
}

// servers are the board's HTTP servers on its listeners. Both answer from
// the start: while the database is opened (and, with db_wait, waited for)
// /healthz says 200 and the rest 503 with the status; then the board's
// handlers take over (use).
type servers struct {
	board, admin swapHandler
	status       atomic.Pointer[string]
	list         []*http.Server
	errc         chan error // what Serve returned, one per server
}

// startServers serves the start-up handlers on ls.
func startServers(cfg config.Config, ls *listeners, log *slog.Logger) *servers {
	hs := &servers{errc: make(chan error, 2)}
	hs.setStatus("starting: opening the database")
	hs.board.set(bbs.StartingBoard())
	hs.admin.set(bbs.StartingAdmin(cfg.AdminToken, func() string { return *hs.status.Load() }))
	public := &http.Server{
		Handler:           &hs.board,
		ReadHeaderTimeout: time.Duration(cfg.ReadHeaderTimeout),
		ReadTimeout:       time.Duration(cfg.ReadTimeout),
		WriteTimeout:      time.Duration(cfg.WriteTimeout),
		IdleTimeout:       time.Duration(cfg.IdleTimeout),
		MaxHeaderBytes:    16 << 10,
		ConnContext:       truth.ConnContext,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	hs.list = []*http.Server{public}
	go func() { hs.errc <- public.Serve(ls.pub) }()
	if ls.adm != nil {
		admin := &http.Server{
			Handler:           &hs.admin,
			ReadHeaderTimeout: time.Duration(cfg.ReadHeaderTimeout),
			IdleTimeout:       time.Duration(cfg.IdleTimeout),
			// No WriteTimeout: a profile may take longer than any default.
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		}
		hs.list = append(hs.list, admin)
		go func() { hs.errc <- admin.Serve(ls.adm) }()
	}
	return hs
}

// setStatus says what the start-up is doing, in the start-up handlers'
// answers.
func (hs *servers) setStatus(s string) { hs.status.Store(&s) }

// use hands both listeners to the board's handlers.
func (hs *servers) use(srv *bbs.Server) {
	hs.board.set(srv.Handler())
	hs.admin.set(srv.AdminHandler())
}

// shutdown stops the servers gracefully, closing any that does not finish
// within timeout.
func (hs *servers) shutdown(timeout time.Duration, log *slog.Logger) {
	log.Info("shutting down", "timeout", timeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for _, s := range hs.list {
		if err := s.Shutdown(sctx); err != nil {
			log.Warn("shutdown", "err", err)
			s.Close()
		}
	}
}

// close closes the servers: after a graceful shutdown, or when start-up
// failed.
func (hs *servers) close() {
	for _, s := range hs.list {
		s.Close()
	}
}

// swapHandler serves whichever handler was set last: the start-up
// handlers while the database is opened, then the board's.
type swapHandler struct{ h atomic.Pointer[http.Handler] }

func (s *swapHandler) set(h http.Handler) { s.h.Store(&h) }

func (s *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}
