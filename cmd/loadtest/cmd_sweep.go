package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/chart"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/watch"
)

// cmdSweep runs once per client count and charts the results.
func cmdSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs, "comma-separated client counts, e.g. 5,10,15,20")
	out := fs.String("out", "", "write the sweep as JSON to `file`")
	charts := fs.String("charts", "sweep", "chart file `prefix` (PREFIX-throughput.svg/.png, PREFIX-response.svg/.png); empty for none")
	var o outputFlags
	o.register(fs, ", one per step: out.csv at 10 clients is out-c10.csv")
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	s, objs, err := f.settings()
	if err != nil {
		return err
	}
	clients, err := cli.ParseCounts(f.clients)
	if err != nil {
		return err
	}
	s.Clients = clients[0]
	if err := o.apply(fs, &s); err != nil {
		return err
	}
	if err := validate(s); err != nil {
		return err
	}
	name := s.Name
	if name == "" {
		name = "loadtest sweep"
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
	// Each step has its own JTL, CSV and profile.
	step := 0
	runs, err := loadtest.Sweep(ctx, s, clients, func(ctx context.Context, s loadtest.Settings) (*loadtest.Result, error) {
		n := s.Clients
		step++
		if dash != nil {
			dash.feed.Begin(feed.Position{Run: name, Step: step, Steps: len(clients), Clients: n,
				StepSeconds: planned(s).Seconds(), After: float64(len(clients)-step) * planned(s).Seconds()})
		}
		res, err := runWithFiles(ctx, s, stepPath(o.jtl, n), stepPath(o.cpuProfile, n), func(ctx context.Context, s loadtest.Settings) (*loadtest.Result, error) {
			res, err := loadtest.Run(ctx, s)
			if err != nil {
				return nil, fmt.Errorf("sweep %d clients: %w", n, err)
			}
			return res, nil
		})
		if err != nil {
			return nil, err
		}
		if dash != nil {
			dash.feed.Step(feed.StepOf(name, n, res.Total), nil)
		}
		fmt.Fprintf(stdout, "== %d clients\n", res.Total.Clients)
		if err := loadtest.WriteSummary(stdout, res, watch.Summary(res)...); err != nil {
			return nil, err
		}
		return res, writeCSV(stepPath(o.csv, n), res)
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "== sweep")
	if err := loadtest.WriteSweepTable(stdout, runs, watch.Columns(contract.Board.Stats)); err != nil {
		return err
	}
	if *out != "" {
		if err := loadtest.WriteSweepJSON(*out, s.Name, runs); err != nil {
			return err
		}
	}
	if *charts != "" && len(runs) > 0 {
		name := s.Name
		if name == "" {
			name = string(s.Model)
		}
		files, err := chart.WriteSweepCharts(*charts, []chart.Curve{{Name: name, Runs: runs}}, boardCharts)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "charts:", strings.Join(files, " "))
	}
	failed, interrupted := false, false
	for _, r := range runs {
		if len(objs) > 0 {
			fmt.Fprintf(stdout, "-- SLO at %d clients\n", r.Total.Clients)
			if !loadtest.WriteObjectiveResults(stdout, loadtest.EvaluateSLO(r, objs)) {
				failed = true
			}
		}
		interrupted = interrupted || r.Interrupted
	}
	return cli.Outcome(interrupted, failed)
}
