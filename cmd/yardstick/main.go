// Command yardstick serves the bare handlers of package yardstick: the
// board's three views as HTML or JSON with the board's SQL and none of its
// machinery, a measuring device for the board's own overhead ("loadtest
// overhead" runs both side by side). The database must already hold the
// board's posts: start the board on it first.
//
//	go run ./cmd/yardstick -db sqlite -dsn bbs.db -addr 127.0.0.1:0
//	go run ./cmd/yardstick -db postgres -dsn postgres://root@127.0.0.1:5432/test?sslmode=disable
//
// It prints its URL ("yardstick: http://127.0.0.1:PORT/bbs") and serves
// /bbs?cmd=AllView|OnceGetView|EachGetView&format=json|html&n=30 until
// interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"bbslab/yardstick"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "yardstick:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError marks a problem with the command line (exit 2).
type usageError struct{ error }

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("yardstick", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "sqlite", "database: sqlite or postgres")
	dsn := fs.String("dsn", "bbs.db", "SQLite file (or file: DSN) or PostgreSQL URL; the board must have created its posts there")
	addr := fs.String("addr", "127.0.0.1:8081", "listen address (port 0 picks a free one)")
	pool := fs.Int("pool", 10, "database connections, all opened at start (min = max)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if *db != "sqlite" && *db != "postgres" {
		return usageError{fmt.Errorf("-db %q: want sqlite or postgres", *db)}
	}
	if *pool < 1 {
		return usageError{fmt.Errorf("-pool %d: want at least 1", *pool)}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	defer ln.Close()
	y, err := yardstick.Open(ctx, *db, *dsn, *pool)
	if err != nil {
		return err
	}
	defer y.Close()
	srv := &http.Server{Handler: y.Handler()}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "yardstick: http://%s/bbs\n", ln.Addr())
	select {
	case err = <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	return nil
}
