package main

import (
	"cmp"
	"context"
	"flag"
	"io"
	"os"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/grade"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/session"
	"bbslab/workshop/room"
)

// loadFlags are the flags of run and sweep: the run's settings
// (loadtest.Settings), its requests (session.Requests) and what it
// watches of the target (session.Watch), each declared with its fields
// (cli.BindFlags), and those of the command itself. A sweep writes one
// file of -csv, -jtl and -cpuprofile per step, named after the given one
// with the client count before the extension (session.StepPath).
type loadFlags struct {
	s                      loadtest.Settings
	reqs                   session.Requests
	watch                  session.Watch
	clients, slo, progress string
	live, out, charts      string
	csv, jtl, cpuProfile   string
	timeline               bool
	timelineN              int
	counts                 []int // -clients read
	objs                   []loadtest.Objective
}

func (f *loadFlags) register(fs *flag.FlagSet, sweep bool) {
	cli.BindFlags(fs, &f.s)
	cli.BindFlags(fs, &f.reqs)
	cli.BindFlags(fs, &f.watch)
	clients, out, perStep := "number of clients (connections)", "result", ""
	if sweep {
		clients, out, perStep = "comma-separated client counts, e.g. 5,10,15,20", "sweep", ", one per step: out.csv at 10 clients is out-c10.csv"
		fs.StringVar(&f.charts, "charts", "sweep", "chart file `prefix` (PREFIX-throughput.svg/.png, PREFIX-response.svg/.png); empty for none")
	}
	fs.StringVar(&f.watch.Stats, "server-stats", "", "stats `URL` of the target, read every second of each measured step: the board's stats JSON (http://127.0.0.1:6060/admin/stats) or any Prometheus text endpoint (http://127.0.0.1:6060/metrics)")
	fs.StringVar(&f.clients, "clients", "10", clients)
	fs.StringVar(&f.slo, "slo", "", "objectives, e.g. 'p99.9<5ms,p99.999<200ms,errors<0.1%' (exit 3 on failure)")
	fs.StringVar(&f.progress, "progress", "auto", "live progress line: auto (on a terminal), on or off")
	fs.StringVar(&f.live, "live", "", "serve the live dashboard at `addr` while the load runs, e.g. 127.0.0.1:0 (a free port; the URL is printed); empty or off: none")
	fs.StringVar(&f.out, "out", "", "write the "+out+" as JSON to `file`")
	fs.StringVar(&f.csv, "csv", "", "write the per-second series as CSV to `file`"+perStep)
	fs.StringVar(&f.jtl, "jtl", "", "write one JMeter CSV line per request to `file`"+perStep)
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the generator to `file`"+perStep)
	fs.BoolVar(&f.timeline, "timeline", false, "record the first -timeline-n requests one by one and latency per 100 ms from the start (charted by report)")
	fs.IntVar(&f.timelineN, "timeline-n", 1000, "requests -timeline records one by one")
}

// loadCommand is run (one run, session.Run) or, with sweep, sweep (one
// run per client count, charted: session.Sweep).
func loadCommand(sweep bool) func(context.Context, []string, io.Writer, io.Writer) error {
	name := map[bool]string{false: "run", true: "sweep"}[sweep]
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		fs := newFlags(name, "", stderr)
		var f loadFlags
		f.register(fs, sweep)
		rm := room.BindFlags(fs)
		if err := cli.ParseFlags(fs, args, false); err != nil {
			return err
		}
		if err := rm.Check(f.out); err != nil {
			return cli.Usage(err)
		}
		if err := f.settings(fs, sweep); err != nil {
			return err
		}
		s := f.s
		dash, err := feed.Start(ctx, f.live, "", stdout)
		if err != nil {
			return err
		}
		defer dash.Stop(stderr)
		so := session.Options{Title: cmp.Or(s.Name, "loadtest "+name), Out: f.out, CSV: f.csv, JTL: f.jtl, CPUProfile: f.cpuProfile,
			Charts: f.charts, Objectives: f.objs, Target: contract.Board, Stdout: stdout}
		if dash != nil {
			so.Feed = dash.NewFeed(so.Title)
		}
		if err := f.watch.Apply(ctx, &s, &so, stderr); err != nil {
			return err
		}
		var v session.Verdict
		if sweep {
			v, err = session.Sweep(ctx, s, f.counts, so)
		} else {
			v, err = session.Run(ctx, s, so)
		}
		if err != nil {
			return interrupted(ctx, err, err.Error())
		}
		rm.Post(ctx, f.out, stderr)
		return cli.Outcome(v.Interrupted, v.Missed)
	}
}

// settings builds and checks f.s, with Clients the first of f.counts,
// and f.objs from the flags.
func (f *loadFlags) settings(fs *flag.FlagSet, sweep bool) (err error) {
	s := &f.s
	if s.Model, err = loadtest.ParseModel(string(s.Model)); err != nil {
		return cli.Usagef("-model: %v", err)
	}
	if s.TimerKind, err = loadtest.ParseTimer(string(s.TimerKind)); err != nil {
		return cli.Usagef("-timer: %v", err)
	}
	if s.Requests, err = f.reqs.Build(); err != nil {
		return err
	}
	if s.Duration == 0 && s.MaxRequests == 0 {
		return cli.Usagef("give -duration or -requests")
	}
	if on, err := cli.OnTerminal("-progress", f.progress, os.Stderr); err != nil {
		return err
	} else if on {
		s.Observers = append(s.Observers, &loadtest.Progress{W: os.Stderr})
	}
	if f.slo != "" {
		if f.objs, err = loadtest.ParseSLO(f.slo); err != nil {
			return cli.Usagef("-slo: %v", err)
		}
	}
	if f.counts, err = cli.ParseCounts(f.clients); !sweep && (err != nil || len(f.counts) > 1) {
		return cli.Usagef("-clients %q: want a positive count", f.clients)
	} else if err != nil {
		return err
	}
	s.Clients = f.counts[0]
	timelineN := false
	fs.Visit(func(fl *flag.Flag) { timelineN = timelineN || fl.Name == "timeline-n" })
	if timelineN && !f.timeline { // it would do nothing
		return cli.Usagef("-timeline-n needs -timeline")
	}
	if f.timeline {
		s.TimelineRequests = f.timelineN
	}
	return cli.Usage(s.Validate())
}

// cmdReport prints summaries and draws charts from saved results
// (session.ReadCurves, session.Report).
func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", "usage: loadtest report [flags] FILE[,FILE...] ...\n\nFILE is a JSON result or sweep, or a JMeter JTL CSV file; comma-joined files form one curve.\n", stderr)
	charts := fs.String("charts", "report", "chart file `prefix`; empty for none")
	names := fs.String("names", "", "comma-separated curve names (default: the runs' names or file names)")
	slo := fs.String("slo", "", "objectives to check against every run (exit 3 on failure)")
	if err := cli.ParseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return cli.Usagef("report: give at least one result file")
	}
	var objs []loadtest.Objective
	if *slo != "" {
		var err error
		if objs, err = loadtest.ParseSLO(*slo); err != nil {
			return cli.Usagef("-slo: %v", err)
		}
	}
	curves, err := session.ReadCurves(fs.Args(), *names)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	v, err := session.Report(stdout, curves, objs, *charts, contract.Board)
	if err != nil {
		return err
	}
	return cli.Outcome(false, v.Missed)
}

// cmdGrade holds load tools' results against the server's own truth.
func cmdGrade(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("grade", "usage: loadtest grade (-server URL | -truth FILE [-truth-log FILE]) [-format NAME] [-window START,END] FILE...\n", stderr)
	var o grade.Options
	cli.BindFlags(fs, &o)
	if err := cli.ParseFlags(fs, args, true); err != nil {
		return err
	}
	return grade.Run(ctx, o, fs.Args(), stdout)
}
