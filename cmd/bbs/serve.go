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
	"time"

	"bbslab/bbs"
	"bbslab/behave"
	"bbslab/config"
	"bbslab/entity/sqlite"
	"bbslab/internal/cli"
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
	ls, err := listen(cfg)
	if err != nil {
		return err
	}
	defer ls.close()
	// Behaviour on demand and the server's truth: the listener stamps each
	// request's arrival (the stall holds requests at the handler's entry).
	settings, err := cfg.Behaviour.Settings()
	if err != nil {
		return cli.Usage(err) // Parse validated it already
	}
	behaviour, record := behave.New(settings), truth.New(0)
	ls.pub = truth.Listener(ls.pub, record)

	defer applyGC(cfg.Latency, log)()
	ins, err := startInstruments(ctx, cfg, stdout, stderr)
	if err != nil {
		return err
	}
	defer ins.stop()

	hs := startServers(cfg, ls, log)
	defer hs.close()
	store, err := openStore(ctx, cfg, log, ins.sqlTrace, hs.setStatus, stderr)
	if err != nil {
		return err
	}
	defer store.Close()
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
		Lang:           cfg.Lang,
		Logger:         log,
		AccessLog:      ins.accessLog,
		Machine:        ins.sampler,
		ServerPort:     ls.pub.Addr().(*net.TCPAddr).Port,
		DBPort:         ins.dbPort,
		Behaviour:      behaviour,
		Truth:          record,
		TruthLog:       cfg.TruthLog,
		TruthDir:       tdir,
		TruthFile:      cfg.TruthFile,
	})
	hs.use(srv)
	fmt.Fprintf(stdout, "board: http://%s/bbs\n", ls.pub.Addr())
	if ls.adm != nil {
		fmt.Fprintf(stdout, "admin: http://%s/\n", ls.adm.Addr())
	}
	return serveBoard(ctx, cfg, srv, hs, log)
}

// serveBoard serves srv until ctx ends or a server fails: the pool is
// filled and the templates are parsed; with warmup, each command runs
// once before /readyz reports ready (warmup.go). Then srv stops being
// ready and the servers shut down gracefully.
func serveBoard(ctx context.Context, cfg config.Config, srv *bbs.Server, hs *servers, log *slog.Logger) error {
	serveErr := warmUp(ctx, cfg, srv, log)
	if serveErr == nil {
		srv.SetReady(true)
		select {
		case <-ctx.Done():
		case serveErr = <-hs.errc:
		}
	}
	srv.SetReady(false)
	hs.shutdown(time.Duration(cfg.ShutdownTimeout), log)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	return nil
}
