package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/resultfile"
)

// StepPath names a sweep step's file after path: out.csv at 10 clients is
// out-c10.csv. An empty path stays empty.
func StepPath(path string, clients int) string {
	if path == "" {
		return ""
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s-c%d%s", strings.TrimSuffix(path, ext), clients, ext)
}

// runWithFiles performs one run through run, writing its JTL lines to
// jtlPath and the generator's CPU profile to cpuPath when they are set.
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
		err = resultfile.WriteJTLEnvironment(jtlPath, res.Environment)
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
	if err := resultfile.WriteSeriesCSV(cf, res.Series); err != nil {
		cf.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := cf.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
