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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
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

// commands are loadtest's commands as "loadtest help" lists them: the
// name, one line of help, and the function run with the arguments after
// the name.
var commands = []struct {
	name, help string
	run        func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}{
	{"run", "one load run against -url or -scenario", loadCommand(false)},
	{"sweep", "one run per client count (-clients 5,10,15,20) with charts", loadCommand(true)},
	{"report", "summary and charts from saved JSON results or JMeter JTL files", cmdReport},
	{"experiment", "start a server per run, validate it, sweep it, write a report (FILE.toml)", cmdExperiment},
	{"calibrate", "set a running board's database wait so it lands on the article's operating point", cmdCalibrate},
	{"tune", "find a running board's best workers and pool under an SLO, a measured step at a time, saying why", cmdTune},
	{"tunebench", "the tuner against the full workers × pool grid on a running board, interleaved: best, winner, ratio, counts, verdict", cmdTuneBench},
	{"overhead", "the board vs the yardstick (bare handlers), side by side on one core", cmdOverhead},
	{"grade", "hold load tools' results (this lab's, JMeter, vegeta, hey, wrk, k6) against the server's truth", cmdGrade},
	{"fleet", "several replicas of a server behind HAProxy (and PgBouncer), until Ctrl-C: -replicas 2 -- COMMAND", cmdFleet},
	{"disturb", "keep CPUs busy on a schedule (-cpu 0 -busy 3s -every 10s -for 5m; -random -seed N) to show an experiment re-measuring", cmdDisturb},
}

// run dispatches to a command.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return cli.Usagef("no command")
	}
	name := args[0]
	for _, c := range commands {
		if c.name == name {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	if slices.Contains([]string{"help", "-h", "-help", "--help"}, name) {
		usage(stdout)
		return nil
	}
	usage(stderr)
	return cli.Usagef("unknown command %q", name)
}

// usage lists the commands.
func usage(w io.Writer) {
	fmt.Fprint(w, "usage: loadtest COMMAND [flags]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s  %s\n", c.name, c.help)
	}
	fmt.Fprint(w, "\n\"loadtest COMMAND -h\" lists a command's flags.\n")
}

// newFlags is the flag set of command name, writing its errors and -h to
// stderr; head, when given, heads -h (else the flag package's line does).
func newFlags(name, head string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if head != "" {
		fs.Usage = func() { fmt.Fprint(stderr, head); fs.PrintDefaults() }
	}
	return fs
}

// interrupted is err or, when the command's context has ended, the error
// of an interrupt (exit 130) saying msg.
func interrupted(ctx context.Context, err error, msg string) error {
	if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return cli.WithCode(cli.ExitInterrupted, errors.New(msg))
}

// linef is a printf to w that ends each line.
func linef(w io.Writer) func(string, ...any) {
	return func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
}

// writeJSON writes v as indented JSON.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
