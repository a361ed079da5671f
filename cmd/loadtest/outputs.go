package main

import (
	"flag"
	"io"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/session"
)

// outputFlags are the per-run output flags that run and sweep share. A
// sweep writes one file per step, named after the given one with the
// client count before the extension (session.StepPath).
type outputFlags struct {
	csv, jtl, cpuProfile string
	timeline             bool
	timelineN            int
}

func (o *outputFlags) register(fs *flag.FlagSet, perStep string) {
	fs.StringVar(&o.csv, "csv", "", "write the per-second series as CSV to `file`"+perStep)
	fs.StringVar(&o.jtl, "jtl", "", "write one JMeter CSV line per request to `file`"+perStep)
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the generator to `file`"+perStep)
	fs.BoolVar(&o.timeline, "timeline", false, "record the first -timeline-n requests one by one and latency per 100 ms from the start (charted by report)")
	fs.IntVar(&o.timelineN, "timeline-n", 1000, "requests -timeline records one by one")
}

// apply sets the settings the flags govern; -timeline-n without -timeline
// is a usage error, since it would do nothing.
func (o *outputFlags) apply(fs *flag.FlagSet, s *loadtest.Settings) error {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "timeline-n" })
	if set && !o.timeline {
		return cli.Usagef("-timeline-n needs -timeline")
	}
	if o.timeline {
		s.TimelineRequests = o.timelineN
	}
	return nil
}

// options are the session's options for a load titled title: the files
// of the flags and out, the objectives, the board as the target and, with
// a dashboard, a feed of the load's rows.
func (o *outputFlags) options(title, out string, objs []loadtest.Objective, d *dashboard, stdout io.Writer) session.Options {
	so := session.Options{Title: title, Out: out, CSV: o.csv, JTL: o.jtl, CPUProfile: o.cpuProfile,
		Objectives: objs, Target: contract.Board, Stdout: stdout}
	if d != nil {
		so.Feed = d.NewFeed(title)
	}
	return so
}
