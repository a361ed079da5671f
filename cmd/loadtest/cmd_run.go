package main

import (
	"context"
	"flag"
	"io"
	"strconv"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/watch"
)

// cmdRun performs one run.
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs, "number of clients (connections)")
	out := fs.String("out", "", "write the result as JSON to `file`")
	var o outputFlags
	o.register(fs, "")
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	s, objs, err := f.settings()
	if err != nil {
		return err
	}
	if s.Clients, err = strconv.Atoi(f.clients); err != nil {
		return cli.Usagef("-clients %q: want a number", f.clients)
	}
	if err := o.apply(fs, &s); err != nil {
		return err
	}
	if err := validate(s); err != nil {
		return err
	}
	name := s.Name
	if name == "" {
		name = "loadtest run"
	}
	dash, err := startDashboard(ctx, f.live, stdout)
	if err != nil {
		return err
	}
	dash = dash.withFeed(name)
	defer dash.stop(stderr)
	if err := f.serverSettings(&s, *out, dash); err != nil {
		return err
	}
	if dash != nil {
		dash.feed.Begin(feed.Position{Run: name, Step: 1, Steps: 1, Clients: s.Clients, StepSeconds: planned(s).Seconds()})
	}
	res, err := runWithFiles(ctx, s, o.jtl, o.cpuProfile, loadtest.Run)
	if err != nil {
		return err
	}
	if dash != nil {
		dash.feed.Step(feed.StepOf(name, s.Clients, res.Total), nil)
	}
	return finish(res, objs, *out, o.csv, stdout)
}

// finish prints the summary, writes the outputs and turns SLO failures and
// interruptions into exit codes.
func finish(res *loadtest.Result, objs []loadtest.Objective, out, csvPath string, stdout io.Writer) error {
	if err := loadtest.WriteSummary(stdout, res, watch.Summary(res)...); err != nil {
		return err
	}
	if out != "" {
		if err := res.WriteJSON(out); err != nil {
			return err
		}
	}
	if err := writeCSV(csvPath, res); err != nil {
		return err
	}
	pass := true
	if len(objs) > 0 {
		pass = loadtest.WriteObjectiveResults(stdout, loadtest.EvaluateSLO(res, objs))
	}
	return cli.Outcome(res.Interrupted, !pass)
}
