package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest/contract"
)

// cmdCalibrate calibrates a board started by hand (contract.CalibrateBoard):
// it leaves the board with the database wait that puts its CPU at -target %
// of what it took with no wait.
func cmdCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("url", "http://127.0.0.1:8080/bbs?cmd=AllView", "the board's page `URL` to load (http:// only)")
	admin := fs.String("admin", "http://127.0.0.1:6060", "base `URL` of the board's admin listener (/admin/stats, /admin/distance)")
	spec := contract.CalibrationSpec()
	fs.IntVar(&spec.Clients, "clients", 10, "clients (connections) looping without think time in each probe")
	fs.Float64Var(&spec.Target, "target", 60, "the operating point: the board's CPU as a `percentage` of its CPU with no wait")
	fs.Float64Var(&spec.Tolerance, "tolerance", 5, "how far from -target is close enough, in percentage points")
	fs.Float64Var(&spec.Ratio, "ratio", 7.33, "first guess: time per request off the CPU over the time on it (the article's 5 threads at 60 %: 5/0.6 - 1)")
	fs.IntVar(&spec.Probes, "probes", 6, "probes at most after the first (1..10; 0: 6)")
	warmup := fs.Duration("warmup", time.Second, "each probe's warm-up, not measured (at most 1m; 0: 1s, as in an experiment file)")
	probe := fs.Duration("probe", 3*time.Second, "each probe's measured duration (2s..1m: the stats are read every second)")
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	spec.Warmup, spec.Duration = cli.Duration(*warmup), cli.Duration(*probe)
	spec.Run = *target
	var errs []error
	if err := cli.CheckHTTPURL(*target); err != nil {
		errs = append(errs, fmt.Errorf("-url %q: %v", *target, err))
	}
	if err := cli.CheckHTTPURL(*admin); err != nil {
		errs = append(errs, fmt.Errorf("-admin %q: %v", *admin, err))
	}
	errs = append(errs, spec.Check(func(key string) string { // the flag of a TOML key
		if key == "duration" {
			return "-probe"
		}
		return "-" + key
	})...)
	if len(errs) > 0 {
		return cli.Usage(errors.Join(errs...))
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	if _, err := contract.CalibrateBoard(ctx, spec, *admin, logf); err != nil {
		if errors.Is(err, context.Canceled) {
			return cli.WithCode(cli.ExitInterrupted, errors.New("interrupted"))
		}
		return err
	}
	return nil
}
