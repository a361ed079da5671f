// Command loadtest drives an HTTP/1.1 server with simulated clients under the
// Fixed Delay, Fixed Rate or open load model and reports throughput, latency
// percentiles and its own cost:
//
//	go run ./cmd/loadtest run -url http://127.0.0.1:8080/bbs -clients 50 -think 500ms -duration 60s
//	go run ./cmd/loadtest experiment loadtest/experiments/article.toml
//	go run ./cmd/loadtest help            # every command, one line each
//	go run ./cmd/loadtest COMMAND -h      # a command's flags
//
// Each command is a thin layer of flags over a package of the load tool
// (docs/layout.md has the map); loadtest/README.md describes them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"bbslab/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop) // a second Ctrl-C kills at once
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(cli.Exit(os.Stderr, "loadtest", err))
}
