package main

import (
	"context"
	"errors"
	"io"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/grade"
	"bbslab/loadtest/merge"
	"bbslab/loadtest/session"
	"bbslab/loadtest/text"
)

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

// cmdMerge combines results from several generator machines.
func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", "usage: loadtest merge [-out FILE] [-allow-disjoint] RESULT.json ...\n", stderr)
	out := fs.String("out", "", "write the merged result as JSON to `file`")
	disjoint := fs.Bool("allow-disjoint", false, "merge results whose measured windows do not overlap at all (refused otherwise)")
	if err := cli.ParseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return cli.Usagef("merge: give the result files of each generator")
	}
	var rs []*loadtest.Result
	for _, p := range fs.Args() {
		r, err := loadtest.ReadResult(p)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		rs = append(rs, r)
	}
	now := time.Now() // the one reading of the clock: messages omit today's date
	m, err := merge.Results(rs, merge.Options{AllowDisjoint: *disjoint, Now: now})
	if errors.Is(err, merge.ErrDisjoint) {
		return cli.Usagef("%v (the files in the order given); start the generators with one -start-at, or give -allow-disjoint to merge them anyway", err)
	}
	if err != nil {
		return err
	}
	if m.Overlap != nil && m.Overlap.Warning != "" {
		linef(stderr)("warning: %s", m.Overlap.Warning)
	}
	if err := merge.WriteOverlap(stdout, m.Overlap, fs.Args(), now); err != nil {
		return err
	}
	if err := text.WriteSummary(stdout, m); err != nil {
		return err
	}
	if *out != "" {
		return m.WriteJSON(*out)
	}
	return nil
}

// cmdGrade holds load tools' results against the server's own truth.
func cmdGrade(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("grade", "usage: loadtest grade (-server URL | -truth FILE [-truth-log FILE]) [-format NAME] [-window START,END] FILE...\n", stderr)
	var o grade.Options
	fs.StringVar(&o.Server, "server", "", "the server's admin `address` (its truth at "+grade.TruthPath+")")
	fs.StringVar(&o.TruthFile, "truth", "", "read the truth from `file` instead of -server")
	fs.StringVar(&o.TruthLog, "truth-log", "", "with -truth: read the truth's per-request log (GET /admin/truth/log saved) from `file`")
	fs.StringVar(&o.Format, "format", "", "the files' `format` ("+grade.FormatNames()+"); default: from each file's content")
	fs.StringVar(&o.Window, "window", "", "`START,END` (RFC 3339): where a file without absolute times lies")
	if err := cli.ParseFlags(fs, args, true); err != nil {
		return err
	}
	return grade.Run(ctx, o, fs.Args(), stdout)
}
