package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"bbslab/internal/cli"
	"bbslab/loadtest/bench"
)

// cmdBench measures the generator's efficiency (package bench).
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o bench.Options
	cli.BindFlags(fs, &o)
	only := fs.String("only", "full,1k,10k", "scenarios to run: full (vs wrk and hey), 1k, 10k, tls (generator CPU per request, http vs https)")
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
