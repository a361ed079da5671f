package experiment

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest/calibrate"
)

func TestCalibrateChecked(t *testing.T) {
	base := tinyText(t, "sim")
	for _, tt := range []struct{ calibrate, want string }{
		{`var = "db_latency"` + "\n" + `run = "nope"`, `calibrate.run = "nope"`},
		{`var = "db_latency"` + "\n" + `set = "http://x/admin/distance"`, "want a URL that holds {{db_latency}}"},
		{`run = "all"`, "calibrate.var: missing"},
		{strings.Replace(calibrateSpec, `reading = ["cpu"]`, `reading = ["unknown"]`, 1), `reading "unknown" is not one of`},
		{strings.Replace(calibrateSpec, "ratio = 7.33", "ratio = -1", 1), "calibrate.ratio = -1"},
		{strings.Replace(calibrateSpec, "tolerance = 10", "tolerance = 90", 1), "calibrate.target = 60, calibrate.tolerance = 90"},
		{strings.Replace(calibrateSpec, `share = "cpu share"`, `share = "requests"`, 1), `calibrate.share = "requests"`},
		{strings.Replace(calibrateSpec, `duration = "2s"`, `duration = "1s"`, 1), "calibrate.duration = 1s"},
	} {
		text := strings.Replace(base, "[load]", "[calibrate]\n"+tt.calibrate+"\n[load]", 1)
		_, err := parse("calibrate.toml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("[calibrate] %q: err = %v; want one that says %q", tt.calibrate, err, tt.want)
		}
	}
}

// calibrateSpec calibrates the fake board in mode "sim": its five workers
// hold each request for 2 ms of "CPU" and the wait, so its CPU share at 60 %
// of what it is with no wait needs 2 ms x (1/0.6 - 1) = 1.33 ms.
const calibrateSpec = `var = "db_latency"
set = "http://127.0.0.1:{{admin_port}}/admin/distance?db_latency={{db_latency}}"
run = "all"
clients = 10
reading = ["cpu"]
relative = true
share = "cpu share"
target = 60
tolerance = 10
cpu = "cpu"
ratio = 7.33
warmup = "200ms"
duration = "2s"`

func TestCalibrate(t *testing.T) {
	t.Parallel() // the calibration's arithmetic, not its timing, and nothing judged (below)
	text := tinyText(t, "sim")
	text = strings.Replace(text, "[load]", "[calibrate]\n"+calibrateSpec+"\n[load]", 1)
	text = strings.Replace(text, `"-admin-addr", "127.0.0.1:{{admin_port}}"]`, `"-admin-addr", "127.0.0.1:{{admin_port}}", "-wait={{db_latency}}"]`, 1)
	text = strings.Replace(text, "[[stats.reading]]", "[[stats.reading]]\nname = \"cpu\"\npath = \"cpu_seconds_total\"\nkind = \"counter\"\nscale = 100\n[[stats.reading]]", 1)
	e, err := parse("sim.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	e.Dir = t.TempDir()
	e.Profile = profileSpec{}
	e.Load.Clients = []int{10}
	e.Load.Warmup, e.Load.Duration = 200*time.Millisecond, 2*time.Second
	e.Load.Think = 0
	e.Runs = e.Runs[:1]
	// The calibration's arithmetic, not the judging of interference: on a
	// busy machine (the race build of the next package beside it) the one
	// step may be judged disturbed and left with no figures.
	e.Disturbance.Off = true
	var log strings.Builder
	out := t.TempDir()
	res, err := Run(context.Background(), e, Options{Target: fakeTarget, Out: out, Log: &log})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	c := res.Calibration
	if c == nil || len(c.Probes) < 2 {
		t.Fatalf("calibration = %+v; want a first probe and at least one more\n%s", c, log.String())
	}
	// Whether it reached 60 ± 10 % and which wait it chose depend on the
	// machine's timing (the fake sleeps); the correction's arithmetic is
	// TestNextWait's. Here: the chosen wait is the last probe's, and the
	// first probe's CPU per request is the fake's count.
	last := c.Probes[len(c.Probes)-1]
	if d, err := time.ParseDuration(c.Value); err != nil || d <= 0 || calibrate.FormatWait(time.Duration(last.WaitMs*float64(time.Millisecond))) != c.Value {
		t.Errorf("chosen wait %q; want the last probe's wait, %.3f ms, above 0\n%s", c.Value, last.WaitMs, log.String())
	}
	if c.Probes[0].WaitMs != 0 {
		t.Errorf("the first probe waited %.3f ms; want none", c.Probes[0].WaitMs)
	}
	if c.CPUPerRequestMs <= 0 {
		t.Errorf("CPU per request with no wait = %.3f ms; want the fake's count, above 0", c.CPUPerRequestMs)
	}
	rr := res.Runs[0]
	if !strings.Contains(strings.Join(rr.Command, " "), "-wait="+c.Value) {
		t.Errorf("run command %q does not carry the chosen wait %s", rr.Command, c.Value)
	}
	if len(res.Runs) != 1 {
		t.Errorf("the calibration server is among the runs: %d runs", len(res.Runs))
	}
	share, ok := rr.Points[0].Server["cpu share"]
	cpu := rr.Points[0].Server["cpu"]
	if !ok || math.Abs(share-cpu/c.Capacity*100) > 1e-9 {
		t.Errorf("the run's cpu share = %v (%v); want its cpu %v as a percentage of the capacity %v", share, ok, cpu, c.Capacity)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(b), "Calibration") || !strings.Contains(string(b), c.Value) {
		t.Errorf("report.md does not show the calibration and its chosen wait %s (%v)", c.Value, err)
	}
}
