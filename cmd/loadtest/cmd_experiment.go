package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/experiment"
	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
	"bbslab/workshop/room"
)

// cmdExperiment runs an experiment file and writes its report folder.
func cmdExperiment(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("experiment", "usage: loadtest experiment [flags] FILE.toml\n\nStarts the server of each run, validates it, sweeps the clients, decides the file's claims and writes a report folder.\n\nflags:\n", stderr)
	out := fs.String("out", "", "report `folder` (default out/NAME-YYYYMMDD-HHMMSS)")
	only := fs.String("runs", "", "comma-separated run `names` to run (default: all)")
	clients := fs.String("clients", "", "override the client counts, e.g. 1,5,10")
	duration := fs.Duration("duration", 0, "override the measured duration of each step")
	warmup := fs.Duration("warmup", -1, "override the warm-up of each step")
	repeats := fs.Int("repeats", 0, fmt.Sprintf("override load.repeats: measure each point `N` times (1..%d)", experiment.MaxRepeats))
	quick := fs.Bool("quick", false, "a quick try of the file: at most 3 client counts (keeping those the claims name), 1 repeat, warm-up <= 1s, steps <= 3s; claims are flagged as single measurements")
	liveAddr := fs.String("live", "127.0.0.1:0", "serve the live dashboard at `addr` while the experiment runs (default: a free loopback port; the URL is printed); off: none")
	pin := fs.Bool("pin", true, "pin the server and the load generator to the file's [server] and [client] cpus (Linux CPU affinity); false, or where pinning fails, caps each with GOMAXPROCS = its number of cpus instead (the notes say which)")
	progress := fs.String("progress", "auto", "progress line (step i/N, time left): auto (on a terminal), on or off")
	lang := fs.String("lang", "en", "the report's language, en or ja: ja writes the headings and verdict words of report.md and index.html in Japanese, and the dashboard's URL asks for Japanese")
	rm := room.BindFlags(fs)
	if err := cli.ParseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cli.Usagef("experiment: want one experiment file, got %d arguments", fs.NArg())
	}
	if *lang != "en" && *lang != "ja" {
		return cli.Usagef("experiment: -lang %q: want en or ja", *lang)
	}
	if *repeats < 0 || *repeats > experiment.MaxRepeats {
		return cli.Usagef("experiment: -repeats %d: want 1..%d", *repeats, experiment.MaxRepeats)
	}
	e, err := experiment.Load(fs.Arg(0))
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if err := override(e, *quick, *only, *clients, *duration, *warmup, *repeats); err != nil {
		return err
	}
	var progressW io.Writer
	if on, err := cli.OnTerminal("experiment: -progress", *progress, os.Stderr); err != nil {
		return err
	} else if on {
		progressW = os.Stderr
		if *progress == "on" {
			progressW = stderr // "on" writes where the command's errors go
		}
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("out", fmt.Sprintf("%s-%s", e.Name, time.Now().Format("20060102-150405")))
	}
	if err := rm.Check(dir); err != nil {
		return cli.Usage(err)
	}
	dash, err := feed.Start(ctx, *liveAddr, *lang, stdout)
	if err != nil {
		return err
	}
	var hub *live.Hub
	if dash != nil {
		hub = dash.Hub
	}
	res, err := experiment.Run(ctx, e, experiment.Options{Out: dir, Log: stdout, Live: hub, Progress: progressW,
		Target: contract.Board, NoPin: !*pin, Lang: *lang})
	dash.Stop(stderr) // the experiment published the end and closed the hub itself
	if res != nil && len(res.Claims) > 0 {
		fmt.Fprintln(stdout, "claims: "+res.ClaimCounts())
		for _, c := range res.Claims {
			fmt.Fprintln(stdout, "  "+c.ClaimLine())
		}
	}
	if res != nil {
		rm.Post(ctx, filepath.Join(dir, "experiment.json"), stdout)
	}
	// An interrupt ends the step in progress; the report of the steps
	// completed is written all the same, and the exit code says so (130),
	// as for run and sweep. Any other error is the experiment's failure.
	interrupted := ctx.Err() != nil
	if err != nil && !(interrupted && errors.Is(err, context.Canceled)) {
		return fmt.Errorf("experiment %s: %w (what was measured is in %s)", e.Name, err, dir)
	}
	if interrupted {
		fmt.Fprintf(stdout, "interrupted: the report of the completed steps is in %s\n", dir)
	}
	return cli.Outcome(interrupted, res != nil && res.SLOFailed())
}

// override applies the command line's overrides to the file's experiment.
func override(e *experiment.Experiment, quick bool, only, clients string, duration, warmup time.Duration, repeats int) error {
	if quick {
		e.MakeQuick()
	}
	if only != "" {
		if err := e.SelectRuns(cli.Items(only)); err != nil {
			return cli.Usagef("experiment: -runs: %v in %s", err, e.Name)
		}
	}
	if clients != "" {
		cs, err := cli.ParseCounts(clients)
		if err != nil {
			return err
		}
		e.Load.Clients = cs
	}
	if duration > 0 {
		e.Load.Duration = duration
	}
	if warmup >= 0 {
		e.Load.Warmup = warmup
	}
	if repeats > 0 {
		e.Load.Repeats = repeats
	}
	return nil
}
