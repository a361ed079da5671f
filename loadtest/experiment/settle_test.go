package experiment

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// busyBoard serves a stats JSON whose interference counter grows at 60 %
// of a core until quietAt, then not at all.
func busyBoard(t *testing.T, quietAt time.Time) string {
	t0 := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		end := time.Now()
		if end.After(quietAt) {
			end = quietAt
		}
		busy := end.Sub(t0).Seconds()
		fmt.Fprintf(w, `{"interference": %g, "cpu": 0.001}`, 0.6*busy)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func settleRunner(url string, settle time.Duration, log *strings.Builder) *experimentRunner {
	var mu sync.Mutex
	x := &experimentRunner{
		e: &Experiment{Stats: statsSpec{URL: url, Format: "json"},
			Disturbance: measure.Rules{Threshold: 10, Settle: cli.Duration(settle), MaxExtra: cli.Duration(time.Minute)}},
		res: &outcome.Result{Stats: []watch.Stat{
			{Name: "interference", Path: "interference", Kind: watch.Counter, Scale: 100},
			{Name: "cpu", Path: "cpu", Kind: watch.Counter, Scale: 100},
		}, Disturbance: &outcome.Disturbance{Interference: "interference", CPU: "cpu",
			// The server unpinned: its cores are all the machine's (2 here: 200 free when idle, 5 % of it expected).
			Baseline: baselineOf(measure.Span{Own: 60, Interference: 2, Capacity: 100})}},
		logf: func(f string, a ...any) { mu.Lock(); defer mu.Unlock(); fmt.Fprintf(log, f+"\n", a...) },
	}
	return x
}

func TestSettleWaitsForQuietCores(t *testing.T) {
	var log strings.Builder
	url := busyBoard(t, time.Now().Add(1500*time.Millisecond))
	x := settleRunner(url, 10*time.Second, &log)
	lr := &serverRun{x: func(s string) string { return s }}
	start := time.Now()
	if err := x.settle(context.Background(), lr, "run a: 10 clients, repeat 1"); err != nil {
		t.Fatal(err)
	}
	waited := time.Since(start)
	// Until the burst ended, and not to the bound: it stopped because the
	// cores were quiet (the log says which), however slow the machine.
	if waited < 1500*time.Millisecond || waited >= 10*time.Second || strings.Contains(log.String(), "still busy") {
		t.Errorf("waited %v; want until the burst ended (1.5 s), stopping as the cores were quiet, before the 10 s allowed\n%s", waited, log.String())
	}
	for _, want := range []string{"waiting for the cores to be quiet", "% of a core on the server's cores, 10 expected", "quiet again after"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	// The burst takes 60 % of a core; the window's own timing moves it a
	// point either way.
	var took float64
	if _, err := fmt.Sscanf(log.String()[strings.Index(log.String(), "others took ")+len("others took "):], "%g", &took); err != nil || took < 55 || took > 65 {
		t.Errorf("others took %g %% (%v); want about 60:\n%s", took, err, log.String())
	}
	if x.res.Disturbance.ExtraSeconds < 1.5 {
		t.Errorf("extra seconds %.1f; want the wait counted", x.res.Disturbance.ExtraSeconds)
	}
}

func TestSettleGivesUpAtItsBound(t *testing.T) {
	var log strings.Builder
	url := busyBoard(t, time.Now().Add(time.Hour))
	x := settleRunner(url, 2*time.Second, &log)
	lr := &serverRun{x: func(s string) string { return s }}
	start := time.Now()
	if err := x.settle(context.Background(), lr, "p"); err != nil {
		t.Fatal(err)
	}
	// At its bound: at least settle less one window; never on to the
	// next window past it (the busy machine's slow reads aside).
	if waited := time.Since(start); waited < 1500*time.Millisecond || x.res.Disturbance.ExtraSeconds > 2+settleWindow.Seconds()+2 {
		t.Errorf("waited %v (%.1f s counted); want about settle's 2 s", waited, x.res.Disturbance.ExtraSeconds)
	}
	if !strings.Contains(log.String(), "still busy after") {
		t.Errorf("log lacks that it measures anyway:\n%s", log.String())
	}
}

func TestSettleQuietAtOnce(t *testing.T) {
	var log strings.Builder
	url := busyBoard(t, time.Now())
	x := settleRunner(url, 10*time.Second, &log)
	lr := &serverRun{x: func(s string) string { return s }}
	start := time.Now()
	if err := x.settle(context.Background(), lr, "p"); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited >= 10*time.Second || log.Len() != 0 {
		t.Errorf("quiet cores: waited %v, log %q; want one window and nothing said", waited, log.String())
	}
}

func TestReservedHalfOfMaxExtra(t *testing.T) {
	x := &experimentRunner{e: &Experiment{Disturbance: measure.Rules{MaxExtra: cli.Duration(90 * time.Second)}},
		res: &outcome.Result{Disturbance: &outcome.Disturbance{}}}
	x.spent(44900 * time.Millisecond)
	if x.budgetOf().Reserved() || x.res.Disturbance.ExtraSeconds != 44.9 {
		t.Errorf("44.9 s of 90 used (recorded %g): reserved; want re-measures for any point", x.res.Disturbance.ExtraSeconds)
	}
	x.spent(100 * time.Millisecond)
	if !x.budgetOf().Reserved() {
		t.Errorf("45 s of 90 used: not reserved; want the rest kept for points with no undisturbed measurement")
	}
}

// TestSettleStealBeforeCalibration: before the calibration's first probe
// the runner waits out a burst of the hypervisor's steal (held to none, no
// baseline yet), and does not wait for other processes (a steady one is
// part of the machine).
func TestSettleStealBeforeCalibration(t *testing.T) {
	quietAt := time.Now().Add(1500 * time.Millisecond)
	t0 := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		end := min(time.Now().Sub(t0), quietAt.Sub(t0)).Seconds()
		// A CPU-bound process on the core all along (interference 90 %),
		// steal at 40 % of a core until quietAt.
		fmt.Fprintf(w, `{"interference": %g, "steal": %g, "cpu": 0.001}`, 0.9*time.Since(t0).Seconds(), 0.4*end)
	}))
	t.Cleanup(srv.Close)
	var log strings.Builder
	x := settleRunner(srv.URL, 10*time.Second, &log)
	x.res.Stats = append(x.res.Stats, watch.Stat{Name: "steal", Path: "steal", Kind: watch.Counter, Scale: 100})
	x.res.Disturbance.Steal = "steal"
	x.res.Disturbance.Baseline = nil
	lr := &serverRun{x: func(s string) string { return s }}
	start := time.Now()
	if err := x.settleSteal(context.Background(), lr); err != nil {
		t.Fatal(err)
	}
	waited := time.Since(start)
	if waited < 1500*time.Millisecond || waited >= 10*time.Second || strings.Contains(log.String(), "still busy") {
		t.Errorf("waited %v; want until the steal ended (1.5 s), not to the 10 s bound\n%s", waited, log.String())
	}
	for _, want := range []string{"calibrate: waiting for the cores to be quiet", "the hypervisor took 40 % of a core from the server's cores, 0 before", "quiet again after"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	// The same machine with no steal reading: nothing to wait for.
	log.Reset()
	x.res.Disturbance.Steal = ""
	extra := x.res.Disturbance.ExtraSeconds
	if err := x.settleSteal(context.Background(), lr); err != nil || x.res.Disturbance.ExtraSeconds != extra || log.Len() != 0 {
		t.Errorf("no steal read: err %v, %.1f s counted, log %q; want no wait", err, x.res.Disturbance.ExtraSeconds-extra, log.String())
	}
}

// baselineOf is a calibration's baseline of the given spans of the
// server's cores.
func baselineOf(spans ...measure.Span) *measure.Baseline {
	b := &measure.Baseline{Source: measure.FromCalibration}
	for i := range spans {
		b.Add(&spans[i], nil)
	}
	return b
}
