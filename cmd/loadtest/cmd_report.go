package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/chart"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/watch"
)

// cmdReport prints summaries and draws charts from saved results. Each
// argument is one curve; files joined with commas form one curve together
// (e.g. one JTL file per client count).
func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	charts := fs.String("charts", "report", "chart file `prefix`; empty for none")
	names := fs.String("names", "", "comma-separated curve names (default: the runs' names or file names)")
	slo := fs.String("slo", "", "objectives to check against every run (exit 3 on failure)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loadtest report [flags] FILE[,FILE...] ...\n\nFILE is a JSON result or sweep, or a JMeter JTL CSV file; comma-joined files form one curve.")
		fs.PrintDefaults()
	}
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
	var nameList []string
	if *names != "" {
		nameList = strings.Split(*names, ",")
	}
	var curves []chart.Curve
	sweepLike := false
	failed := false
	for i, arg := range fs.Args() {
		var c chart.Curve
		for _, path := range strings.Split(arg, ",") {
			runs, err := loadtest.ReadRuns(path)
			if err != nil {
				return cli.Usagef("%v", err)
			}
			c.Runs = append(c.Runs, runs...)
		}
		switch {
		case i < len(nameList):
			c.Name = nameList[i]
		case len(c.Runs) > 0 && c.Runs[0].Name != "" && c.Runs[0].Tool != "jmeter-jtl":
			c.Name = c.Runs[0].Name
		default:
			c.Name = strings.TrimSuffix(filepath.Base(strings.Split(arg, ",")[0]), filepath.Ext(arg))
		}
		if len(c.Runs) > 1 {
			sweepLike = true
		}
		curves = append(curves, c)
	}
	// Results from different machines, builds or servers are compared with
	// a warning at the top, before any figure.
	var all []*loadtest.Result
	for _, c := range curves {
		all = append(all, c.Runs...)
	}
	loadtest.WriteEnvironmentWarning(stdout, all)
	for _, c := range curves {
		fmt.Fprintf(stdout, "== %s\n", c.Name)
		for _, r := range c.Runs {
			if err := loadtest.WriteSummary(stdout, r, watch.Summary(r)...); err != nil {
				return err
			}
			if len(objs) > 0 && !loadtest.WriteObjectiveResults(stdout, loadtest.EvaluateSLO(r, objs)) {
				failed = true
			}
		}
		if len(c.Runs) > 1 {
			loadtest.WriteSweepTable(stdout, c.Runs, watch.Columns(contract.Board.Stats))
		}
	}
	if *charts != "" {
		var files []string
		var err error
		if sweepLike {
			files, err = chart.WriteSweepCharts(*charts, curves, boardCharts)
		} else {
			files, err = chart.WriteTimelineCharts(*charts, curves)
		}
		if err != nil {
			return err
		}
		cold, err := chart.WriteColdStartChart(*charts, curves)
		if err != nil {
			return err
		}
		files = append(files, cold...)
		fmt.Fprintln(stdout, "charts:", strings.Join(files, " "))
	}
	return cli.Outcome(false, failed)
}

// boardCharts are the board's server charts (contract.Board).
var boardCharts = chart.Server{Charts: contract.Board.Charts, Stats: contract.Board.Stats}
