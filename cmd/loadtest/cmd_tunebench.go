package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
// throughput ratio with its spread and how many settings each measured.
// A benchmark: it prints figures and judges nothing.
func cmdTuneBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tunebench", flag.ContinueOnError)
	seed := fs.Uint64("grid-seed", 1, "seed of the grid's shuffled order")
	rounds := fs.Int("side-by-side", 5, "measure the grid's best and the winners again at the end, side by side in `N` interleaved rounds (0: not)")
	startList := fs.String("starts", "", "tune from each `setting` of a comma-separated list (e.g. 5/5,40/40) against one grid; instead of -start")
	spec, parse := tuneFlags(fs, stderr, "write the tunings and the grid as JSON to `file`")
	out, err := parse(args)
	if err != nil {
		return err
	}
	if *rounds < 0 || *rounds > 20 {
		return cli.Usagef("-side-by-side %d: want 0 to 20 rounds", *rounds)
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
	logf("grid: %d settings (workers × pool on the tuner's ladder within -min/-max-workers and -pool), each measured as a tuner step", len(tune.Grid(*spec)))
	g, err := tune.RunGrid(ctx, *spec, starts, contract.Board, tune.Options{Logf: logf}, *seed, *rounds)
	switch {
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return errInterrupted()
	case err != nil:
		return err
	}
	logf("grid's best: %s: %.0f/s (%.0f-%.0f), %s %.2f ms, %s the objectives", knobsShort(g.Best.Knobs), g.Best.Throughput.Median, g.Best.Throughput.Min, g.Best.Throughput.Max,
		g.Best.LatencyName, g.Best.Latency.Median, metWord(g.Best.Met))
	if len(g.Disturbed) > 0 {
		logf("grid: %d attempts disturbed and measured again; %d settings never undisturbed (left out of the best)", len(g.Disturbed), len(g.Unmeasured))
	}
	for _, t := range g.Tunes {
		w := t.Tune.WinnerStep()
		logf("tuner from %s: winner %s: %.0f/s (%.0f-%.0f), %s %.2f ms, %s the objectives", knobsShort(t.Tune.Start), knobsShort(t.Tune.Winner), w.Throughput.Median, w.Throughput.Min, w.Throughput.Max,
			w.LatencyName, w.Latency.Median, metWord(t.Tune.WinnerMet))
		logf("  throughput ratio tuner/grid: %.3f (%.3f-%.3f); within the grid's noise of its best or better: %v", t.Ratio.Median, t.Ratio.Min, t.Ratio.Max, t.Within)
		if t.RatioInGrid != nil {
			logf("  the same with the winner as the grid measured it: %.3f (%.3f-%.3f)", t.RatioInGrid.Median, t.RatioInGrid.Min, t.RatioInGrid.Max)
		}
		if t.SideRatio != nil {
			logf("  side by side at the end (%d rounds): %.3f (%.3f-%.3f); within the noise or better: %v", *rounds, t.SideRatio.Median, t.SideRatio.Min, t.SideRatio.Max, *t.SideWithin)
		}
		if t.SidePaired != nil {
			logf("  round by round, the winner over the best: %.3f (%.3f-%.3f)", t.SidePaired.Median, t.SidePaired.Min, t.SidePaired.Max)
		}
		logf("  measurements: tuner %d settings (%d runs), grid %d settings (%d runs): the tuner took %.0f%% of the grid's", t.TunerMeasurements, t.Tune.Runs,
			g.GridMeasurements, g.GridMeasurements*max(spec.Repeats, 1), 100*float64(t.TunerMeasurements)/float64(g.GridMeasurements))
	}
	if out != "" {
		b, err := json.MarshalIndent(struct {
			Tool string    `json:"tool"`
			At   time.Time `json:"at"`
			*tune.GridResult
		}{"loadtest tunebench", time.Now().UTC(), g}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
			return err
		}
		logf("wrote %s", out)
	}
	return nil
}
