package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"bbslab/internal/cli"
)

const usage = `usage: loadtest COMMAND [flags]

commands:
  run      one load run against -url or -scenario
  sweep    one run per client count (-clients 5,10,15,20) with charts
  report   summary and charts from saved JSON results or JMeter JTL files
  merge    combine results from several generator machines
  experiment  start a server per run, validate it, sweep it, write a report (FILE.toml)
  calibrate   set a running board's database wait so it lands on the article's operating point
  tune     find a running board's best workers and pool under an SLO, a measured step at a time, saying why
  tunebench  the tuner against the full workers × pool grid on a running board, interleaved: best, winner, ratio, counts, verdict
  bench    measure the generator's efficiency (against wrk and hey if present)
  pageserver  a small page server for bench (-addr, -size; was "target", which still works)
  overhead the board vs the yardstick (bare handlers), side by side on one core
  grade    hold load tools' results (this lab's, JMeter, vegeta, hey, wrk, k6) against the server's truth
  fleet    several replicas of a server behind HAProxy (and PgBouncer), until Ctrl-C: -replicas 2 -- COMMAND
  disturb  keep CPUs busy on a schedule (-cpu 0 -busy 3s -every 10s -for 5m; -random -seed N) to show an experiment re-measuring

"loadtest COMMAND -h" lists a command's flags.
`

// run dispatches to a subcommand.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return cli.Usage(errors.New("no command"))
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
	case "calibrate":
		return cmdCalibrate(ctx, rest, stdout, stderr)
	case "tune":
		return cmdTune(ctx, rest, stdout, stderr)
	case "tunebench":
		return cmdTuneBench(ctx, rest, stdout, stderr)
	case "bench":
		return cmdBench(ctx, rest, stdout, stderr)
	case "pageserver", "target": // "target" was its name; a server under test is a watch.Target
		return cmdPageServer(ctx, rest, stdout, stderr)
	case "overhead":
		return cmdOverhead(ctx, rest, stdout, stderr)
	case "grade":
		return cmdGrade(ctx, rest, stdout, stderr)
	case "disturb":
		return cmdDisturb(ctx, rest, stdout, stderr)
	case "fleet":
		return cmdFleet(ctx, rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return cli.Usagef("unknown command %q", cmd)
}
