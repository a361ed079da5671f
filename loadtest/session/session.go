// Package session performs what the load tool's run, sweep and report
// commands do around the engine:
//
//	v, err := session.Run(ctx, settings, session.Options{Out: "run.json", CSV: "run.csv", Stdout: os.Stdout})
//	v, err = session.Sweep(ctx, settings, []int{5, 10, 20}, session.Options{Out: "sweep.json", Charts: "article", Stdout: os.Stdout})
//
// The package knows no target: the server's columns and charts come in
// Options.Target.
package session

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/chart"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/text"
	"bbslab/loadtest/watch"
)

// Options say where a run or a sweep writes what it measured.
type Options struct {
	Title string // the load's name on the dashboard
	Out   string // the JSON file of the result or the sweep
	// CSV, JTL and CPUProfile are the per-second series, per-request lines and
	// generator's CPU profile; a sweep writes one of each per step (StepPath).
	CSV, JTL, CPUProfile string
	Charts               string // a sweep's chart file prefix
	Objectives           []loadtest.Objective
	Target               watch.Target
	Feed                 *feed.Feed // told each step as it begins and ends
	Stdout               io.Writer
}

// A Verdict says whether a run or a sweep was interrupted or missed an objective.
type Verdict struct {
	Interrupted, Missed bool
}

// Run performs the run s describes (Clients set), writes the files o
// names, and prints its summary and the objectives' verdicts.
func Run(ctx context.Context, s loadtest.Settings, o Options) (Verdict, error) {
	if o.Feed != nil {
		o.Feed.Begin(feed.Position{Run: o.Title, Step: 1, Steps: 1, Clients: s.Clients, StepSeconds: planned(s).Seconds()})
	}
	res, err := runWithFiles(ctx, s, o.JTL, o.CPUProfile, loadtest.Run)
	if err != nil {
		return Verdict{}, err
	}
	if o.Feed != nil {
		o.Feed.Step(feed.StepOf(o.Title, s.Clients, res.Total), nil)
	}
	if err := text.WriteSummary(o.Stdout, res, watch.Summary(res)...); err != nil {
		return Verdict{}, err
	}
	if o.Out != "" {
		if err := res.WriteJSON(o.Out); err != nil {
			return Verdict{}, err
		}
	}
	if err := writeCSV(o.CSV, res); err != nil {
		return Verdict{}, err
	}
	v := Verdict{Interrupted: res.Interrupted}
	if len(o.Objectives) > 0 {
		v.Missed = !text.WriteObjectiveResults(o.Stdout, loadtest.EvaluateSLO(res, o.Objectives))
	}
	return v, nil
}

// Sweep performs one run of s per client count, each with its own files
// and summary, then writes the sweep table, JSON, charts and verdicts.
func Sweep(ctx context.Context, s loadtest.Settings, clients []int, o Options) (Verdict, error) {
	step := 0
	runs, err := loadtest.Sweep(ctx, s, clients, func(ctx context.Context, s loadtest.Settings) (*loadtest.Result, error) {
		n := s.Clients
		step++
		if o.Feed != nil {
			o.Feed.Begin(feed.Position{Run: o.Title, Step: step, Steps: len(clients), Clients: n,
				StepSeconds: planned(s).Seconds(), After: float64(len(clients)-step) * planned(s).Seconds()})
		}
		res, err := runWithFiles(ctx, s, StepPath(o.JTL, n), StepPath(o.CPUProfile, n), func(ctx context.Context, s loadtest.Settings) (*loadtest.Result, error) {
			res, err := loadtest.Run(ctx, s)
			if err != nil {
				return nil, fmt.Errorf("sweep %d clients: %w", n, err)
			}
			return res, nil
		})
		if err != nil {
			return nil, err
		}
		if o.Feed != nil {
			o.Feed.Step(feed.StepOf(o.Title, n, res.Total), nil)
		}
		fmt.Fprintf(o.Stdout, "== %d clients\n", res.Total.Clients)
		if err := text.WriteSummary(o.Stdout, res, watch.Summary(res)...); err != nil {
			return nil, err
		}
		return res, writeCSV(StepPath(o.CSV, n), res)
	})
	if err != nil {
		return Verdict{}, err
	}
	fmt.Fprintln(o.Stdout, "== sweep")
	if err := text.WriteSweepTable(o.Stdout, runs, watch.Columns(o.Target.Stats)); err != nil {
		return Verdict{}, err
	}
	writeUSL(o.Stdout, runs)
	if o.Out != "" {
		if err := loadtest.WriteSweepJSON(o.Out, s.Name, runs); err != nil {
			return Verdict{}, err
		}
	}
	if o.Charts != "" && len(runs) > 0 {
		curve := chart.Curve{Name: cmp.Or(s.Name, string(s.Model)), Runs: runs}
		files, err := chart.WriteSweepCharts(o.Charts, []chart.Curve{curve}, server(o.Target))
		if err != nil {
			return Verdict{}, err
		}
		fmt.Fprintln(o.Stdout, "charts:", strings.Join(files, " "))
	}
	var v Verdict
	for _, r := range runs {
		if len(o.Objectives) > 0 {
			fmt.Fprintf(o.Stdout, "-- SLO at %d clients\n", r.Total.Clients)
			if !text.WriteObjectiveResults(o.Stdout, loadtest.EvaluateSLO(r, o.Objectives)) {
				v.Missed = true
			}
		}
		v.Interrupted = v.Interrupted || r.Interrupted
	}
	return v, nil
}

// planned is how long a run of s is planned to load, warm-up included.
func planned(s loadtest.Settings) time.Duration {
	if s.Duration > 0 {
		return s.Warmup + s.Duration
	}
	return s.MaxDuration
}

func server(t watch.Target) chart.Server {
	return chart.Server{Charts: t.Charts, Stats: t.Stats}
}

// writeUSL prints the Universal Scalability Law fitted to a sweep, if it fits.
func writeUSL(w io.Writer, runs []*loadtest.Result) {
	var clients []int
	var x []float64
	for _, r := range runs {
		if r.Total.Throughput > 0 {
			clients, x = append(clients, r.Total.Clients), append(x, r.Total.Throughput)
		}
	}
	if t := text.USLText(clients, x); t != "" {
		fmt.Fprintln(w, t)
	}
}
