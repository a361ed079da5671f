// Command bbs serves the tuning lab's bulletin board: the AllView,
// OnceGetView and EachGetView commands behind a worker limit and a database
// connection pool, on SQLite (the default, nothing to install) or PostgreSQL.
//
//	go run ./cmd/bbs                      # SQLite file bbs.db, http://127.0.0.1:8080/bbs
//	go run ./cmd/bbs -db postgres -dsn postgres://root@127.0.0.1:5432/test?sslmode=disable
//	BBS_DSN=postgres://bbs:bbs@127.0.0.1:5432/test BBS_ADMIN_TOKEN=... go run ./cmd/bbs -db postgres
//
// Secrets come from BBS_DSN and BBS_ADMIN_TOKEN rather than flags, which
// every local user can read in the process list; a flag, when given, wins
// over the environment, which wins over the -config file. Without a
// PostgreSQL server, docs/postgres.md says how to start one.
//
//	go run ./cmd/bbs -config config/bbs.example.toml -workers 5 -pool 5
//	go run ./cmd/bbs diskbench [-dir DIR] [-n 1000] [-json]   # the disk-speed article's benchmark
package main

import (
	"bbslab/internal/cli"
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if code := cli.Exit(os.Stderr, "bbs", err); code != 0 {
		os.Exit(code)
	}
}

// run runs the bbs command with args (without the program name) until ctx
// ends. Subcommands: serve (the default), diskbench.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "serve":
			return serve(ctx, args[1:], getenv, stdout, stderr)
		case "diskbench":
			return diskbenchCmd(ctx, args[1:], stdout, stderr)
		}
	}
	return serve(ctx, args, getenv, stdout, stderr)
}
