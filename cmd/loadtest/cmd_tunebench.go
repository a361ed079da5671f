package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/tune"
	"bbslab/loadtest/watch"
)

// cmdTuneBench holds the tuner against the full grid of workers × pool on
// a running board (tune.RunGrid): the tunings from each of -starts, one
// after the other, interleaved with the grid's settings in a shuffled
// order, then the grid's best and, for each tuning, its winner, their
// throughput ratios (information), how many settings each measured, and
// the verdict: the grid's best and the winners measured again side by
// side in -side-by-side interleaved rounds, a winner within the best when
// the median of its round-by-round ratios reaches -within
// (docs/experiments.md, "The tuner against the grid"). The results are written in full whatever
// the verdict; a winner not within exits 3.
func cmdTuneBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tunebench", flag.ContinueOnError)
	var gs tune.GridSpec
	cli.BindFlags(fs, &gs)
	startList := fs.String("starts", "", "tune from each `setting` of a comma-separated list (e.g. 5/5,40/40) against one grid; instead of -start")
	spec, parse := tuneFlags(fs, stderr, "write the tunings and the grid as JSON to `file`")
	out, err := parse(args)
	if err != nil {
		return err
	}
	if err := gs.Validate(); err != nil {
		return cli.Usage(err)
	}
	var starts []watch.Knobs
	if *startList != "" {
		if spec.Start != (watch.Knobs{}) {
			return cli.Usagef("-start and -starts: give one")
		}
		for _, s := range strings.Split(*startList, ",") {
			k, err := parseKnobs(strings.TrimSpace(s))
			if err != nil {
				return cli.Usagef("-starts %q: %q: %v", *startList, s, err)
			}
			starts = append(starts, k)
		}
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	announceTune(logf, spec)
	g, err := tune.RunGrid(ctx, *spec, starts, contract.Board, tune.Options{Logf: logf}, gs)
	switch {
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return errInterrupted()
	case err != nil:
		return err
	}
	g.Report(logf, spec.Repeats)
	if out != "" {
		if err := writeJSON(out, struct {
			Tool string    `json:"tool"`
			At   time.Time `json:"at"`
			*tune.GridResult
		}{"loadtest tunebench", time.Now().UTC(), g}); err != nil {
			return err
		}
		logf("wrote %s", out)
	}
	if n := g.NotWithin(); n > 0 {
		return cli.WithCode(cli.ExitSLO, fmt.Errorf("tunebench: %d of %d winners not within the grid's best (-within %g)", n, len(g.Tunes), gs.Within))
	}
	return nil
}
