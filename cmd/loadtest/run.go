package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

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
  bench    measure the generator's efficiency (against wrk and hey if present)
  target   a small page server for bench (-addr, -size)
  overhead the board vs the yardstick (bare handlers), side by side on one core
  grade    hold load tools' results (this lab's, JMeter, vegeta, hey, wrk, k6) against the server's truth

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
	case "bench":
		return cmdBench(ctx, rest, stdout, stderr)
	case "target":
		return cmdTarget(ctx, rest, stdout, stderr)
	case "overhead":
		return cmdOverhead(ctx, rest, stdout, stderr)
	case "grade":
		return cmdGrade(ctx, rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return cli.Usagef("unknown command %q", cmd)
}

// parseCounts parses -clients of sweep and experiment: comma-separated
// positive client counts.
func parseCounts(list string) ([]int, error) {
	var counts []int
	for _, c := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return nil, cli.Usagef("-clients %q: want comma-separated positive counts", list)
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
			return cli.Usage(errors.New("")) // flag printed the problem
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) > 0 && !files {
		return cli.Usagef("%s: unexpected argument %q", fs.Name(), pos[0])
	}
	return fs.Parse(append([]string{"--"}, pos...))
}
