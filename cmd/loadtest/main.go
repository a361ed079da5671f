// Command loadtest drives an HTTP/1.1 server with simulated clients under the
// Fixed Delay, Fixed Rate or open load model and reports throughput, latency
// percentiles and its own cost. Subcommands: run, sweep, report, merge,
// experiment, calibrate, bench, target, overhead, grade and disturb; "loadtest help" lists
// them and "loadtest COMMAND -h" a command's flags.
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
