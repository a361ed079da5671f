package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/session"
)

// cmdReport prints summaries and draws charts from saved results
// (session.ReadCurves, session.Report).
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
