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

// CalibrationSpec is the spec "loadtest calibrate" fills in from its flags.
func CalibrationSpec() calibrate.Spec {
	cpu := Board.ProcessCPU
	return calibrate.Spec{Var: DistanceVar, Reading: []string{cpu.Name}, CPU: cpu.Name, Relative: true}
}

// CalibrateBoard calibrates the running board whose admin listener is at
// admin and leaves it with the wait chosen, or on an error the wait it had;
// spec comes from CalibrationSpec and has passed Check.
func CalibrateBoard(ctx context.Context, spec calibrate.Spec, admin string, logf func(string, ...any)) (*calibrate.Calibration, error) {
	adminURL := strings.TrimSuffix(admin, "/")
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
		DistanceVar, cal.Value, cal.CPUPerRequestMs, map[bool]string{true: "yes", false: "no"}[cal.Reached])
	logf("the board keeps running with %s = %s (it had %v). To set it back:\n  curl -X POST '%s%s?%s=%v'",
		DistanceVar, cal.Value, before, adminURL, DistancePath, DistanceVar, before)
	logf("To start a board with it: go run ./cmd/bbs -db-latency %s (and the same -workers and -pool)", cal.Value)
	return cal, nil
}

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
