package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"bbslab/bbs"
	"bbslab/behave"
	"bbslab/config"
	"bbslab/entity"
	"bbslab/entity/sqlite"
	"bbslab/internal/cli"
	"bbslab/internal/pgsetup"
	"bbslab/truth"
)

// serve starts the board and its admin listener and serves until ctx ends,
// then stops accepting, lets in-flight requests finish and closes the pool.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bbs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg, err := config.Parse(fs, args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return cli.Usage(err)
	}
	if cfg.DB == "sqlite" && !sqlite.Available {
		return sqlite.ErrNoCgo // before listening: this build cannot serve SQLite at all
	}
	tdir, err := openTruthDir(cfg)
	if err != nil {
		return err
	}
	if tdir != nil {
		defer tdir.Close()
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	// Listen first so that a taken port fails before the database work.
	pub, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	defer pub.Close()
	if !cfg.TCPNoDelay {
		pub = bbs.NoDelayListener(pub, false) // Nagle's algorithm on (latency experiments)
	}
	// Behaviour on demand and the server's truth: the listener stamps each
	// request's arrival (the stall holds requests at the handler's entry).
	settings, err := cfg.Behaviour.Settings()
	if err != nil {
		return cli.Usage(err) // Parse validated it already
	}
	behaviour, record := behave.New(settings), truth.New(0)
	pub = truth.Listener(pub, record)
	var adm net.Listener
	if cfg.AdminAddr != "" {
		if adm, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			return fmt.Errorf("listen on admin address %s: %w", cfg.AdminAddr, err)
		}
		defer adm.Close()
	}

	defer applyGC(cfg.Latency, log)()
	ins, err := startInstruments(ctx, cfg, stdout, stderr)
	if err != nil {
		return err
	}
	defer ins.stop()

	// Both listeners answer from the start: while the database is opened
	// (and, with db_wait, waited for) /healthz says 200 and the rest 503
	// with the reason; then the board's handlers take over.
	var status atomic.Pointer[string]
	setStatus := func(s string) { status.Store(&s) }
	setStatus("starting: opening the database")
	boardH, adminH := &swapHandler{}, &swapHandler{}
	boardH.set(bbs.StartingBoard())
	adminH.set(bbs.StartingAdmin(cfg.AdminToken, func() string { return *status.Load() }))
	public := &http.Server{
		Handler:           boardH,
		ReadHeaderTimeout: time.Duration(cfg.ReadHeaderTimeout),
		ReadTimeout:       time.Duration(cfg.ReadTimeout),
		WriteTimeout:      time.Duration(cfg.WriteTimeout),
		IdleTimeout:       time.Duration(cfg.IdleTimeout),
		MaxHeaderBytes:    16 << 10,
		ConnContext:       truth.ConnContext,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	servers := []*http.Server{public}
	errc := make(chan error, 2)
	go func() { errc <- public.Serve(pub) }()
	if adm != nil {
		admin := &http.Server{
			Handler:           adminH,
			ReadHeaderTimeout: time.Duration(cfg.ReadHeaderTimeout),
			IdleTimeout:       time.Duration(cfg.IdleTimeout),
			// No WriteTimeout: a profile may take longer than any default.
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		}
		servers = append(servers, admin)
		go func() { errc <- admin.Serve(adm) }()
	}
	defer func() {
		for _, s := range servers {
			s.Close() // after a graceful shutdown, or when start-up failed
		}
	}()

	start := time.Now()
	store, err := openWithWait(ctx, time.Duration(cfg.DBWait), log, entity.Options{
		Driver:       cfg.DB,
		DSN:          cfg.DSN,
		Pool:         cfg.Pool,
		PoolMin:      cfg.PoolMin,
		PoolMode:     cfg.PoolMode,
		PoolValidate: cfg.PoolValidate,
		SeedPosts:    cfg.SeedPosts,
		Distance: entity.Distance{
			Latency: time.Duration(cfg.DBLatency),
			Jitter:  time.Duration(cfg.DBLatencyJitter),
			Connect: time.Duration(cfg.ConnectLatency),
			// The admin listener's /admin/distance sets the wait while
			// the board runs (loadtest calibrate).
			Adjustable: true,
		},
		Trace: ins.sqlTrace,
	}, func(attempt int, left time.Duration) {
		setStatus(fmt.Sprintf("starting: waiting for the database (attempt %d failed; db_wait leaves %v)", attempt, left.Round(100*time.Millisecond)))
	})
	if err != nil {
		if cfg.DB == "postgres" && errors.Is(err, entity.ErrUnavailable) {
			fmt.Fprint(stderr, pgsetup.Hint)
		}
		return err
	}
	defer store.Close()
	log.Info("database ready", "db", cfg.DB, "pool", cfg.Pool, "pool_min", cfg.PoolMin, "pool_mode", cfg.PoolMode, "pool_validate", cfg.PoolValidate, "db_latency", cfg.DBLatency.String(), "db_latency_jitter", cfg.DBLatencyJitter.String(), "connect_latency", cfg.ConnectLatency.String(), "seconds", time.Since(start).Seconds())

	srv := bbs.New(bbs.Options{
		Store:          store,
		PageSize:       cfg.PageSize,
		SeedPosts:      cfg.SeedPosts,
		Workers:        cfg.Workers,
		Queue:          cfg.Queue,
		QueueTimeout:   time.Duration(cfg.QueueTimeout),
		RequestTimeout: time.Duration(cfg.RequestTimeout),
		AdminToken:     cfg.AdminToken,
		Config:         cfg.Redacted(),
		Cmdline:        append([]string{os.Args[0]}, config.RedactArgs(args)...),
		DBName:         cfg.DB,
		WriteChunks:    cfg.WriteChunks,
		Logger:         log,
		AccessLog:      ins.accessLog,
		Machine:        ins.sampler,
		ServerPort:     pub.Addr().(*net.TCPAddr).Port,
		DBPort:         ins.dbPort,
		Behaviour:      behaviour,
		Truth:          record,
		TruthLog:       cfg.TruthLog,
		TruthDir:       tdir,
		TruthFile:      cfg.TruthFile,
	})
	boardH.set(srv.Handler())
	adminH.set(srv.AdminHandler())
	fmt.Fprintf(stdout, "board: http://%s/bbs\n", pub.Addr())
	if adm != nil {
		fmt.Fprintf(stdout, "admin: http://%s/\n", adm.Addr())
	}
	// The pool is filled and templates are parsed; with warmup, each command
	// runs once before /readyz reports ready (warmup.go).
	serveErr := warmUp(ctx, cfg, srv, log)
	if serveErr == nil {
		srv.SetReady(true)
		select {
		case <-ctx.Done():
		case serveErr = <-errc:
		}
	}
	srv.SetReady(false)
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), time.Duration(cfg.ShutdownTimeout))
	defer cancel()
	for _, s := range servers {
		if err := s.Shutdown(sctx); err != nil {
			log.Warn("shutdown", "err", err)
			s.Close()
		}
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	return nil
}

// swapHandler serves whichever handler was set last: the start-up
// handlers while the database is opened, then the board's.
type swapHandler struct{ h atomic.Pointer[http.Handler] }

func (s *swapHandler) set(h http.Handler) { s.h.Store(&h) }

func (s *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}
