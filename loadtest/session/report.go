package session

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"bbslab/loadtest"
	"bbslab/loadtest/chart"
	"bbslab/loadtest/resultfile"
	"bbslab/loadtest/text"
	"bbslab/loadtest/watch"
)

// ReadCurves reads saved results into curves, one per argument (files joined
// by commas), named by names, else the first run's, else the first file's.
func ReadCurves(args []string, names string) ([]chart.Curve, error) {
	var nameList []string
	if names != "" {
		nameList = strings.Split(names, ",")
	}
	var curves []chart.Curve
	for i, arg := range args {
		var c chart.Curve
		for _, path := range strings.Split(arg, ",") {
			runs, err := resultfile.Read(path)
			if err != nil {
				return nil, err
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
		curves = append(curves, c)
	}
	return curves, nil
}

// Report prints every run's summary and objs' verdicts to w, a sweep table
// for a curve of several runs, and draws the charts with a charts prefix.
func Report(w io.Writer, curves []chart.Curve, objs []loadtest.Objective, charts string, target watch.Target) (Verdict, error) {
	var all []*loadtest.Result
	sweepLike := false
	for _, c := range curves {
		all = append(all, c.Runs...)
		sweepLike = sweepLike || len(c.Runs) > 1
	}
	text.WriteEnvironmentWarning(w, all)
	var v Verdict
	for _, c := range curves {
		fmt.Fprintf(w, "== %s\n", c.Name)
		for _, r := range c.Runs {
			if err := text.WriteSummary(w, r, watch.Summary(r)...); err != nil {
				return v, err
			}
			if len(objs) > 0 && !text.WriteObjectiveResults(w, loadtest.EvaluateSLO(r, objs)) {
				v.Missed = true
			}
		}
		if len(c.Runs) > 1 {
			text.WriteSweepTable(w, c.Runs, watch.Columns(target.Stats))
		}
	}
	if charts == "" {
		return v, nil
	}
	var files []string
	var err error
	if sweepLike {
		files, err = chart.WriteSweepCharts(charts, curves, server(target))
	} else {
		files, err = chart.WriteTimelineCharts(charts, curves)
	}
	if err != nil {
		return v, err
	}
	cold, err := chart.WriteColdStartChart(charts, curves)
	if err != nil {
		return v, err
	}
	fmt.Fprintln(w, "charts:", strings.Join(append(files, cold...), " "))
	return v, nil
}
