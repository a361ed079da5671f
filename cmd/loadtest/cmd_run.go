package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/pprof"
	"strconv"

	"bbslab/loadtest"
)

// cmdRun performs one run.
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs, "number of clients (connections)")
	out := fs.String("out", "", "write the result as JSON to `file`")
	csvPath := fs.String("csv", "", "write the per-second series as CSV to `file`")
	jtlPath := fs.String("jtl", "", "write one JMeter CSV line per request to `file`")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the generator to `file`")
	timeline := fs.Bool("timeline", false, "record the first -timeline-n requests one by one and latency per 100 ms from the start (charted by report)")
	timelineN := fs.Int("timeline-n", 1000, "requests -timeline records one by one")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	s, objs, err := f.settings()
	if err != nil {
		return err
	}
	if s.Clients, err = strconv.Atoi(f.clients); err != nil {
		return usageErr("-clients %q: want a number", f.clients)
	}
	if *timeline {
		s.Timeline = *timelineN
	}
	if err := f.serverSettings(&s, *out); err != nil {
		return err
	}
	if err := validate(s); err != nil {
		return err
	}
	if *jtlPath != "" {
		jf, err := createFile(*jtlPath)
		if err != nil {
			return err
		}
		defer jf.Close()
		s.JTL = jf
	}
	if *cpuProfile != "" {
		pf, err := createFile(*cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := loadtest.Run(ctx, s)
	if err != nil {
		return err
	}
	return finish(res, objs, *out, *csvPath, stdout)
}

// finish prints the summary, writes the outputs and turns SLO failures and
// interruptions into exit codes.
func finish(res *loadtest.Result, objs []loadtest.Objective, out, csvPath string, stdout io.Writer) error {
	if err := loadtest.WriteSummary(stdout, res); err != nil {
		return err
	}
	if out != "" {
		if err := res.WriteJSON(out); err != nil {
			return err
		}
	}
	if csvPath != "" {
		cf, err := createFile(csvPath)
		if err != nil {
			return err
		}
		if err := loadtest.WriteSeriesCSV(cf, res.Series); err != nil {
			cf.Close()
			return fmt.Errorf("write %s: %w", csvPath, err)
		}
		if err := cf.Close(); err != nil {
			return err
		}
	}
	pass := true
	if len(objs) > 0 {
		pass = loadtest.WriteVerdicts(stdout, loadtest.EvaluateSLO(res, objs))
	}
	return exitFor(res.Interrupted, !pass)
}
