package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest/bench"
)

// cmdBench measures the generator's efficiency (package bench).
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o bench.Options
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "length of each full-speed run")
	fs.IntVar(&o.Conns, "conns", 50, "connections for the full-speed runs")
	fs.IntVar(&o.Size, "size", 2048, "page size in bytes")
	only := fs.String("only", "full,1k,10k", "scenarios to run: full (vs wrk and hey), 1k, 10k, tls (generator CPU per request, http vs https)")
	fs.StringVar(&o.Hey, "hey", "", "path of the hey binary (default: on PATH, else built with go install into a temp dir)")
	fs.IntVar(&o.Rounds, "rounds", 3, "full-speed rounds; tools alternate within a round and the median and best are reported")
	fs.IntVar(&o.SlowRounds, "slow-rounds", 3, "rounds of each 1,000-client run (the median is reported)")
	fs.BoolVar(&o.Pin, "pin", true, "pin the generator to CPU 0 and the target to CPU 1 (Linux)")
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	o.Choose(*only)
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	o.Exe = exe
	return bench.Run(ctx, o, stdout, stderr)
}
