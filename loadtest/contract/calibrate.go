package contract

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/calibrate"
	"bbslab/loadtest/watch"
)

// CalibrationSpec is the calibration of a board started by hand, for
// "loadtest calibrate" to fill in from its flags (clients, target,
// tolerance, ratio, probes, warm-up and duration) and its page URL (Run):
// it moves the statements' wait (DistanceVar) on the running board and
// reads the board's own CPU (ProcessCPU) as the operating point, relative
// to the CPU it took with no wait.
func CalibrationSpec() calibrate.Spec {
	cpu := Board.ProcessCPU
	return calibrate.Spec{Var: DistanceVar, Reading: []string{cpu.Name}, CPU: cpu.Name, Relative: true}
}

// CalibrateBoard calibrates a running board, as an experiment's
// [calibrate] section does the servers it starts: it checks that the
// board's admin listener at admin has DistancePath and that the page
// spec.Run answers 200, probes the page with no wait, then sets the wait
// on the board (SetDistance) and corrects it until the board's CPU is at
// spec.Target % of what it took with no wait (calibrate.Run), and
// leaves the board with that wait. spec comes from CalibrationSpec and has
// passed Check. logf gets a line per probe and, at the end, the choice and
// how to set the wait back or start a board with it. On an error the
// board is set back to the wait it had, even when ctx has ended; errors
// before any load name admin and the page by the command's flags (-admin,
// -url).
func CalibrateBoard(ctx context.Context, spec calibrate.Spec, admin string, logf func(string, ...any)) (*calibrate.Calibration, error) {
	adminURL := strings.TrimSuffix(admin, "/")
	// The board must answer, and have the endpoint, before any load.
	before, err := Distance(ctx, adminURL)
	if err != nil {
		return nil, fmt.Errorf("-admin %s: %w (is the board running, e.g. go run ./cmd/bbs -workers 5 -pool 5, with its admin listener at -admin?)", admin, err)
	}
	if err := checkPage(ctx, spec.Run); err != nil {
		return nil, fmt.Errorf("-url %s: %w", spec.Run, err)
	}
	w, err := Board.Watcher(watch.Options{StatsURL: adminURL + Board.StatsPath, Stats: []watch.Stat{Board.ProcessCPU}})
	if err != nil {
		return nil, err
	}
	s := loadtest.Settings{Name: "calibrate", Requests: []loadtest.Request{{URL: spec.Run, Expect: http.StatusOK}}, Clients: spec.Clients,
		Warmup: time.Duration(spec.Warmup), Duration: time.Duration(spec.Duration), Model: loadtest.ModelDelay, Timeout: 10 * time.Second, Watcher: w}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	measure := func(ctx context.Context, wait time.Duration) (*loadtest.Result, error) {
		if _, err := SetDistance(ctx, adminURL, wait); err != nil {
			return nil, fmt.Errorf("set %s = %v: %w", DistanceVar, wait, err)
		}
		return loadtest.Run(ctx, s)
	}
	cal, err := calibrate.Run(ctx, spec, measure, logf)
	if err != nil {
		// Leave the board as it was found, even when ctx has ended.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if _, rerr := SetDistance(rctx, adminURL, before); rerr == nil {
			logf("calibration stopped; the board's %s is back to %v", DistanceVar, before)
		}
		return nil, err
	}
	logf("%s", cal.Summary())
	logf("chosen: %s = %s (CPU per request %.3f ms with no wait; operating point reached: %s)",
		DistanceVar, cal.Value, cal.CPUPerRequestMs, yesNo(cal.Reached))
	logf("the board keeps running with %s = %s (it had %v). To set it back:\n  curl -X POST '%s%s?%s=%v'",
		DistanceVar, cal.Value, before, adminURL, DistancePath, DistanceVar, before)
	logf("To start a board with it: go run ./cmd/bbs -db-latency %s (and the same -workers and -pool)", cal.Value)
	return cal, nil
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
