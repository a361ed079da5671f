package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Exit codes.
const (
	exitError       = 1
	exitUsage       = 2
	exitSLO         = 3
	exitInterrupted = 130
)

// exitFor is the error, and so the exit code, of results written in full:
// interrupted wins over failed objectives; nil when neither.
func exitFor(interrupted, sloFailed bool) error {
	switch {
	case interrupted:
		return &exitErr{code: exitInterrupted, err: errors.New("interrupted; partial results written")}
	case sloFailed:
		return &exitErr{code: exitSLO, err: errors.New("SLO failed")}
	}
	return nil
}

// exitErr carries an exit code with an error.
type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string { return e.err.Error() }
func (e *exitErr) Unwrap() error { return e.err }

// usageErr marks a problem with the command line or an input file (exit 2).
func usageErr(format string, a ...any) error {
	return &exitErr{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// exitCode prints err (if any) and returns the process exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var e *exitErr
	if errors.As(err, &e) {
		if e.err.Error() != "" {
			fmt.Fprintln(stderr, "loadtest:", e.err)
		}
		return e.code
	}
	fmt.Fprintln(stderr, "loadtest:", err)
	return exitError
}

const usage = `usage: loadtest COMMAND [flags]

commands:
  run      one load run against -url or -scenario
  sweep    one run per client count (-clients 5,10,15,20) with charts
  report   summary and charts from saved JSON results or JMeter JTL files
  merge    combine results from several generator machines
  experiment  start a server per run, validate it, sweep it, write a report (FILE.toml)
  bench    measure the generator's efficiency (against wrk and hey if present)
  target   a small page server for bench (-addr, -size)
  overhead the board vs the yardstick (bare handlers), side by side on one core

"loadtest COMMAND -h" lists a command's flags.
`

// run dispatches to a subcommand.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return &exitErr{code: exitUsage, err: errors.New("no command")}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return cmdRun(ctx, rest, stdout, stderr)
	case "sweep":
		return cmdSweep(ctx, rest, stdout, stderr)
	case "report":
		return cmdReport(ctx, rest, stdout, stderr)
	case "merge":
		return cmdMerge(ctx, rest, stdout, stderr)
	case "experiment":
		return cmdExperiment(ctx, rest, stdout, stderr)
	case "bench":
		return cmdBench(ctx, rest, stdout, stderr)
	case "target":
		return cmdTarget(ctx, rest, stdout, stderr)
	case "overhead":
		return cmdOverhead(ctx, rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usageErr("unknown command %q", cmd)
}

// parseCounts parses -clients of sweep and experiment: comma-separated
// positive client counts.
func parseCounts(list string) ([]int, error) {
	var counts []int
	for _, c := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return nil, usageErr("-clients %q: want comma-separated positive counts", list)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

// parseFlags parses args, allowing flags after positional arguments, and
// turns flag errors into usage errors. With files, the positional
// arguments are left in fs.Args(); without, any is a usage error.
func parseFlags(fs *flag.FlagSet, args []string, files bool) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return &exitErr{code: exitUsage, err: errors.New("")} // flag printed the problem
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) > 0 && !files {
		return usageErr("%s: unexpected argument %q", fs.Name(), pos[0])
	}
	return fs.Parse(append([]string{"--"}, pos...))
}
