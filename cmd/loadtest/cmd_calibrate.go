package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/experiment"
	"bbslab/loadtest/watch"
)

// calibrateFlags maps a calibration's TOML keys to this command's flags,
// for the errors of CalibrateSpec.Check.
var calibrateFlags = map[string]string{"duration": "-probe"}

// cmdCalibrate calibrates a board started by hand, as an experiment's
// [calibrate] section does the servers it starts: it probes the board with
// no database wait, then sets the wait on the running board
// (/admin/distance) and corrects it until the board's CPU is at -target %
// of what it took with no wait, and leaves the board with that wait.
func cmdCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("url", "http://127.0.0.1:8080/bbs?cmd=AllView", "the board's page `URL` to load (http:// only)")
	admin := fs.String("admin", "http://127.0.0.1:6060", "base `URL` of the board's admin listener (/admin/stats, /admin/distance)")
	cpu := contract.Board.ProcessCPU
	spec := experiment.CalibrateSpec{Var: contract.DistanceVar, Reading: []string{cpu.Name}, CPU: cpu.Name, Relative: true}
	fs.IntVar(&spec.Clients, "clients", 10, "clients (connections) looping without think time in each probe")
	fs.Float64Var(&spec.Target, "target", 60, "the operating point: the board's CPU as a `percentage` of its CPU with no wait")
	fs.Float64Var(&spec.Tolerance, "tolerance", 5, "how far from -target is close enough, in percentage points")
	fs.Float64Var(&spec.Ratio, "ratio", 7.33, "first guess: time per request off the CPU over the time on it (the article's 5 threads at 60 %: 5/0.6 - 1)")
	fs.IntVar(&spec.Probes, "probes", 6, "probes at most after the first (1..10; 0: 6)")
	warmup := fs.Duration("warmup", time.Second, "each probe's warm-up, not measured (at most 1m; 0: 1s, as in an experiment file)")
	probe := fs.Duration("probe", 3*time.Second, "each probe's measured duration (2s..1m: the stats are read every second)")
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	spec.Warmup, spec.Duration = experiment.Duration(*warmup), experiment.Duration(*probe)
	spec.Run = *target
	var errs []error
	if err := cli.CheckHTTPURL(*target); err != nil {
		errs = append(errs, fmt.Errorf("-url %q: %v", *target, err))
	}
	if err := cli.CheckHTTPURL(*admin); err != nil {
		errs = append(errs, fmt.Errorf("-admin %q: %v", *admin, err))
	}
	errs = append(errs, spec.Check(func(key string) string {
		if f, ok := calibrateFlags[key]; ok {
			return f
		}
		return "-" + key
	})...)
	if len(errs) > 0 {
		return cli.Usage(errors.Join(errs...))
	}
	adminURL := strings.TrimSuffix(*admin, "/")

	// The board must answer, and have the endpoint, before any load.
	before, err := contract.Distance(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("-admin %s: %w (is the board running, e.g. go run ./cmd/bbs -workers 5 -pool 5, with its admin listener at -admin?)", *admin, err)
	}
	if err := checkPage(ctx, *target); err != nil {
		return fmt.Errorf("-url %s: %w", *target, err)
	}
	w, err := watch.New(contract.Board.Options(adminURL+contract.Board.StatsPath, cpu))
	if err != nil {
		return err
	}
	s := loadtest.Settings{Name: "calibrate", Requests: []loadtest.Request{{URL: *target, Expect: http.StatusOK}}, Clients: spec.Clients,
		Warmup: time.Duration(spec.Warmup), Duration: time.Duration(spec.Duration), Model: loadtest.ModelDelay, Timeout: 10 * time.Second, Watch: w}
	if err := validate(s); err != nil {
		return err
	}
	measure := func(ctx context.Context, wait time.Duration) (*loadtest.Result, error) {
		if _, err := contract.SetDistance(ctx, adminURL, wait); err != nil {
			return nil, fmt.Errorf("set %s = %v: %w", contract.DistanceVar, wait, err)
		}
		return loadtest.Run(ctx, s)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	cal, err := experiment.Calibrate(ctx, spec, measure, logf)
	if err != nil {
		// Leave the board as it was found, even when ctx has ended.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if _, rerr := contract.SetDistance(rctx, adminURL, before); rerr == nil {
			fmt.Fprintf(stdout, "calibration stopped; the board's %s is back to %v\n", contract.DistanceVar, before)
		}
		if errors.Is(err, context.Canceled) {
			return cli.WithCode(cli.ExitInterrupted, errors.New("interrupted"))
		}
		return err
	}
	fmt.Fprintln(stdout, cal.Summary())
	fmt.Fprintf(stdout, "chosen: %s = %s (CPU per request %.3f ms with no wait; operating point reached: %s)\n",
		contract.DistanceVar, cal.Value, cal.CPUPerRequestMs, yesNo(cal.Reached))
	fmt.Fprintf(stdout, "the board keeps running with %s = %s (it had %v). To set it back:\n  curl -X POST '%s%s?%s=%v'\n",
		contract.DistanceVar, cal.Value, before, adminURL, contract.DistancePath, contract.DistanceVar, before)
	fmt.Fprintf(stdout, "To start a board with it: go run ./cmd/bbs -db-latency %s (and the same -workers and -pool)\n", cal.Value)
	return nil
}

// checkPage fetches the page once: the board must answer it with 200.
func checkPage(ctx context.Context, u string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the board does not answer: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the board answered %s; want 200", resp.Status)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
