package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"bbslab/internal/cli"
	"bbslab/loadtest"
)

// outputFlags are the per-run output flags that run and sweep share. A
// sweep writes one file per step, named after the given one with the
// client count before the extension (stepPath).
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
		s.Timeline = o.timelineN
	}
	return nil
}

// stepPath names a sweep step's file after path: out.csv at 10 clients is
// out-c10.csv. An empty path stays empty.
func stepPath(path string, clients int) string {
	if path == "" {
		return ""
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s-c%d%s", strings.TrimSuffix(path, ext), clients, ext)
}

// runWithFiles performs one run (through run, which gets s with Settings.JTL
// set), writing its JTL lines to jtlPath and a CPU profile of the generator
// over the run to cpuPath when they are set.
func runWithFiles(ctx context.Context, s loadtest.Settings, jtlPath, cpuPath string, run func(context.Context, loadtest.Settings) (*loadtest.Result, error)) (res *loadtest.Result, err error) {
	if jtlPath != "" {
		jf, err := cli.Create(jtlPath)
		if err != nil {
			return nil, err
		}
		defer func() {
			if cerr := jf.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("close %s: %w", jtlPath, cerr)
			}
		}()
		s.JTL = jf
	}
	if cpuPath != "" {
		pf, err := cli.Create(cpuPath)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			pf.Close()
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			if cerr := pf.Close(); cerr != nil {
				err = errors.Join(err, fmt.Errorf("close %s: %w", cpuPath, cerr))
			}
		}()
	}
	res, err = run(ctx, s)
	if err == nil && jtlPath != "" && res != nil && res.Environment != nil {
		err = loadtest.WriteJTLEnvironment(jtlPath, res.Environment)
	}
	return res, err
}

// writeCSV writes res's per-second series to path (nothing when empty).
func writeCSV(path string, res *loadtest.Result) error {
	if path == "" {
		return nil
	}
	cf, err := cli.Create(path)
	if err != nil {
		return err
	}
	if err := loadtest.WriteSeriesCSV(cf, res.Series); err != nil {
		cf.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := cf.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
