package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"bbslab/loadtest/contract"
	"bbslab/loadtest/tune"
)

// cmdTuneBench holds the tuner against the full grid of workers × pool on
// a running board (tune.RunGrid): the tuning, interleaved with the grid's
// settings in a shuffled order, then the grid's best, the tuner's winner,
// their throughput ratio with its spread and how many settings each
// measured. A benchmark: it prints figures and judges nothing.
func cmdTuneBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tunebench", flag.ContinueOnError)
	seed := fs.Uint64("grid-seed", 1, "seed of the grid's shuffled order")
	spec, parse := tuneFlags(fs, stderr, "write the tuning and the grid as JSON to `file`")
	out, err := parse(args)
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	announceTune(logf, spec)
	logf("grid: %d settings (workers × pool on the tuner's ladder within -min/-max-workers and -pool), each measured as a tuner step", len(tune.Grid(*spec)))
	g, err := tune.RunGrid(ctx, *spec, contract.Board, tune.Options{Logf: logf}, *seed)
	switch {
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return errInterrupted()
	case err != nil:
		return err
	}
	w := g.Tune.WinnerStep()
	logf("grid's best: %s: %.0f/s (%.0f-%.0f), %s %.2f ms, %s the objectives", knobsShort(g.Best.Knobs), g.Best.Throughput.Median, g.Best.Throughput.Min, g.Best.Throughput.Max,
		g.Best.LatencyName, g.Best.Latency.Median, metWord(g.Best.Met))
	logf("tuner's winner: %s: %.0f/s (%.0f-%.0f), %s %.2f ms, %s the objectives", knobsShort(g.Tune.Winner), w.Throughput.Median, w.Throughput.Min, w.Throughput.Max,
		w.LatencyName, w.Latency.Median, metWord(g.Tune.WinnerMet))
	logf("throughput ratio tuner/grid: %.3f (%.3f-%.3f); within the grid's noise of its best or better: %v", g.Ratio.Median, g.Ratio.Min, g.Ratio.Max, g.Within)
	if g.RatioInGrid != nil {
		logf("the same with the winner as the grid measured it: %.3f (%.3f-%.3f)", g.RatioInGrid.Median, g.RatioInGrid.Min, g.RatioInGrid.Max)
	}
	logf("measurements: tuner %d settings (%d runs), grid %d settings (%d runs): the tuner took %.0f%% of the grid's", g.TunerMeasurements, g.Tune.Runs,
		g.GridMeasurements, g.GridMeasurements*max(spec.Repeats, 1), 100*float64(g.TunerMeasurements)/float64(g.GridMeasurements))
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
