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
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/session"
	"bbslab/loadtest/tune"
	"bbslab/loadtest/watch"
	"bbslab/workshop/room"
)

// cmdCalibrate calibrates a board started by hand (contract.CalibrateBoard):
// it leaves the board with the database wait that puts its CPU at -target %
// of what it took with no wait.
func cmdCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", "", stderr)
	spec := contract.CalibrationSpec()
	fs.StringVar(&spec.Run, "url", "http://127.0.0.1:8080/bbs?cmd=AllView", "the board's page `URL` to load (http:// only)")
	admin := fs.String("admin", "http://127.0.0.1:6060", "base `URL` of the board's admin listener (/admin/stats, /admin/distance)")
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
	var errs []error
	for _, u := range []struct{ flag, url string }{{"-url", spec.Run}, {"-admin", *admin}} {
		if err := cli.CheckHTTPURL(u.url); err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %v", u.flag, u.url, err))
		}
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
	_, err := contract.CalibrateBoard(ctx, spec, *admin, linef(stdout))
	return interrupted(ctx, err, "interrupted")
}

// cmdTune tunes a running board's workers and pool (tune.Run with
// contract.Board): one line per step, the winner, the article's two
// rules, and the whole tuning as JSON with -out.
func cmdTune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune", "", stderr)
	liveAddr := fs.String("live", "", "serve the live dashboard at `addr` while it tunes (e.g. 127.0.0.1:0; the URL is printed): each second's load and the board's readings, and the path through the workers × pool plane; empty or off: none")
	spec, parse := tuneFlags(fs, "write the tuning (every step with its evidence, the winner, the rules) as JSON to `file`")
	rm := room.BindFlags(fs)
	out, err := parse(args)
	if err != nil {
		return err
	}
	if err := rm.Check(out); err != nil {
		return cli.Usage(err)
	}
	if on := *liveAddr != "" && *liveAddr != "off"; on && spec.Load.Duration < 2*time.Second {
		return cli.Usagef("-live: give -duration 2s or more (the board's stats are read every second; a shorter step may hold one read and no rates)")
	}
	dash, err := feed.Start(ctx, *liveAddr, "", stdout)
	if err != nil {
		return err
	}
	defer dash.Stop(stderr)
	logf := linef(stdout)
	opt := tune.Options{Logf: logf}
	if dash != nil {
		opt.Feed(dash.NewFeed("loadtest tune"), spec)
	}
	logf("tune: %s", spec.Describe())
	res, err := tune.Run(ctx, *spec, contract.Board, opt)
	if res != nil {
		logf("stopped: %s", res.Stopped)
		logf("%d settings measured (%d runs) in %.0f s", res.Measurements, res.Runs, res.Seconds)
		if out != "" {
			if werr := writeJSON(out, tune.File{Tool: "loadtest tune", At: time.Now().UTC(), Load: spec.Load, Result: res}); werr != nil {
				return werr
			}
			logf("wrote %s", out)
			rm.Post(ctx, out, stdout)
		}
	}
	if err = interrupted(ctx, err, "interrupted"); err != nil {
		return err
	}
	return cli.Outcome(false, !res.WinnerMet)
}

// cmdTuneBench holds the tuner against the full grid of workers × pool on
// a running board (tune.RunGrid): the tunings from each of -starts and the
// grid, interleaved; its verdict judges each winner against the grid's
// best side by side (docs/experiments.md, "The tuner against the grid").
// The results are written in full whatever the verdict; a winner not
// within exits 3.
func cmdTuneBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tunebench", "", stderr)
	var gs tune.GridSpec
	cli.BindFlags(fs, &gs)
	startList := fs.String("starts", "", "tune from each `setting` of a comma-separated list (e.g. 5/5,40/40) against one grid; instead of -start")
	spec, parse := tuneFlags(fs, "write the tunings and the grid as JSON to `file`")
	out, err := parse(args)
	if err != nil {
		return err
	}
	if err := gs.Validate(); err != nil {
		return cli.Usage(err)
	}
	var starts []watch.Knobs
	if *startList != "" && spec.Start != (watch.Knobs{}) {
		return cli.Usagef("-start and -starts: give one")
	}
	for _, s := range cli.Items(*startList) {
		k, err := watch.ParseKnobs(s)
		if err != nil {
			return cli.Usagef("-starts %q: %q: %v", *startList, s, err)
		}
		starts = append(starts, k)
	}
	logf := linef(stdout)
	logf("tune: %s", spec.Describe())
	g, err := tune.RunGrid(ctx, *spec, starts, contract.Board, tune.Options{Logf: logf}, gs)
	if err = interrupted(ctx, err, "interrupted"); err != nil {
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

// tuneFlags registers tune's flags on fs (tune.Spec's with its thresholds,
// the load's and the requests', through cli.BindFlags, two of the
// measuring rules and the command's own) and returns the spec they fill
// and the parser that fills it (the requests, the board's AllView without
// -url or -scenario, then tune.Spec.Complete), returning -out.
func tuneFlags(fs *flag.FlagSet, outHelp string) (*tune.Spec, func([]string) (string, error)) {
	spec := &tune.Spec{}
	var reqs session.Requests
	cli.BindFlags(fs, spec)
	cli.BindFlags(fs, &spec.Load)
	cli.BindFlags(fs, &reqs)
	fs.Float64Var(&spec.Rules.Threshold, "disturbed", 0, "a measurement is disturbed when others took more than this many points of a core beyond the steps before (0: the rules' default)")
	fs.Float64Var(&spec.Rules.NoiseFloor, "noise", 0, "least noise of a throughput, in % of its median: a difference counts only beyond the spreads widened to ± this (0: the rules' default, 2)")
	clients := fs.Int("clients", 20, "clients (connections) of each measurement")
	slo := fs.String("slo", "p99<10ms", "objectives every setting is held to, e.g. 'p99<10ms,errors<0.1%'")
	start := fs.String("start", "", "first `setting`, WORKERS/POOL (e.g. 5/5; default: the knobs in force)")
	out := fs.String("out", "", outHelp)
	return spec, func(args []string) (string, error) {
		if err := cli.ParseFlags(fs, args, false); err != nil {
			return "", err
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if len(reqs.URLs) == 0 && reqs.Scenario == "" { // the board's AllView
			reqs.URLs = cli.List{"http://127.0.0.1:8080/bbs?cmd=AllView"}
		}
		var err error
		if spec.Load.Requests, err = reqs.Build(); err != nil {
			return "", err
		}
		return *out, spec.Complete(*clients, *slo, *start, set["duration"], set["warmup"])
	}
}
