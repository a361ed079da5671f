package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest/calibrate"
	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/outcome"
)

// TestProbeJudge: each probe is judged by the disturbance rule against the
// probes accepted before it.
func TestProbeJudge(t *testing.T) {
	x := &experimentRunner{e: &Experiment{Disturbance: measure.Rules{Threshold: 10}}}
	j := &probeJudge{x: x}
	// Quiet machine: the first probe with no wait (board 97 % of its core,
	// others 2) is the bar.
	if why := j.judge(&measure.Span{Own: 97, Interference: 2, Capacity: 100}, nil); why != "" {
		t.Errorf("the first probe judged: %s", why)
	}
	j.accept(&measure.Span{Own: 97, Interference: 2, Capacity: 100}, nil)
	if why := j.judge(&measure.Span{Own: 60, Interference: 8, Capacity: 100}, nil); why != "" {
		t.Errorf("others 8 %% against 2: %s; want undisturbed (threshold 10)", why)
	}
	if why := j.judge(&measure.Span{Own: 45, Interference: 40, Capacity: 100}, nil); !strings.Contains(why, "40.0 %") {
		t.Errorf("a burst (others 40 %%): %q; want disturbed", why)
	}
	// A steady hog: it took half the core with no wait (all of the free
	// time), and takes the free time at the wait's probe: not disturbed.
	h := &probeJudge{x: x}
	h.accept(&measure.Span{Own: 50, Interference: 50, Capacity: 100}, nil)
	if why := h.judge(&measure.Span{Own: 30, Interference: 70, Capacity: 100}, nil); why != "" {
		t.Errorf("a steady hog taking the free time: %s; want undisturbed", why)
	}
	// One disturbed probe accepted (no attempts left) does not raise the
	// bar: the lowest level and the lowest free share are kept.
	j.accept(&measure.Span{Own: 60, Interference: 3, Capacity: 100}, nil)
	j.accept(&measure.Span{Own: 45, Interference: 40, Capacity: 100}, nil)
	if why := j.judge(&measure.Span{Own: 50, Interference: 30, Capacity: 100}, nil); why == "" {
		t.Errorf("others 30 %% after a disturbed probe was kept: undisturbed; want judged against the lowest share (3 of 40 free)")
	}
	cal := &calibrate.Calibration{Probes: []calibrate.Probe{{}, {}, {Dropped: "x"}}}
	b := j.baseline(cal)
	if b.Server == nil || b.Server.Spans != 2 || b.Server.Level > 3 {
		t.Errorf("baseline %+v; want the 2 probes not dropped", b.Server)
	}
}

func TestRecalibrationReason(t *testing.T) {
	x := &experimentRunner{e: &Experiment{Calibrate: calibrate.Spec{Run: "g1", Clients: 10}, Disturbance: measure.Rules{CPUPerRequest: 25}},
		res: &outcome.Result{Disturbance: &outcome.Disturbance{CPU: "cpu"}}}
	cal := &calibrate.Calibration{Reading: "cpu", Relative: true, Capacity: 90, Target: 60, Tolerance: 3,
		Probes: []calibrate.Probe{{CPUPerRequestMs: 0.2}, {WaitMs: 1, CPUPerRequestMs: 0.2}}}
	at := func(cpu, tput float64) *outcome.Repeat {
		return &outcome.Repeat{Server: map[string]float64{"cpu": cpu}, Total: outcome.Figures{Throughput: tput}}
	}
	for _, c := range []struct {
		name      string
		rp        *outcome.Repeat
		wantEmpty bool
		want      string
	}{
		{"on the point", at(54, 2700), true, ""},                                          // 60 % of 90, 0.2 ms
		{"within twice the tolerance", at(59, 2950), true, ""},                            // 65.6 %
		{"share beyond the band", at(64, 3200), false, "beyond the calibration's 60 ± 6"}, // 71.1 %, 0.2 ms
		{"CPU per request moved", at(54, 2000), false, "CPU per request"},                 // 0.27 ms
	} {
		got := x.recalibrationReason(cal, c.rp, 1)
		if (got == "") != c.wantEmpty || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q; want %q", c.name, got, c.want)
		}
	}
}

func TestQuietToleranceFollowsTheRunsNoise(t *testing.T) {
	x := &experimentRunner{e: &Experiment{Disturbance: measure.Rules{CPUPerRequest: 25}}, res: &outcome.Result{}}
	mk := func(ms ...float64) *outcome.Point {
		p := &outcome.Point{}
		for _, v := range ms {
			p.Repeats = append(p.Repeats, &outcome.Repeat{Server: map[string]float64{"cpu": v * 100}, Total: outcome.Figures{Throughput: 1000}})
		}
		return p
	}
	// Steady: repeats within a few % of each other: the file's 25 %.
	x.res.Runs = []*outcome.Run{{Points: []*outcome.Point{mk(0.20, 0.21, 0.20), mk(0.30, 0.29, 0.31), mk(0.40, 0.41, 0.40)}}}
	if tol, why := x.quietTolerance("cpu"); tol != 25 || !strings.Contains(why, "disturbance.cpu_per_request") {
		t.Errorf("steady: %g (%s); want the file's 25", tol, why)
	}
	// Beside a CPU-bound process: ±15 % between repeats; 4 x the median
	// deviation is above 25, and a 30 % repeat is not suspect.
	x.res.Runs = []*outcome.Run{{Points: []*outcome.Point{mk(0.20, 0.23, 0.17), mk(0.30, 0.345, 0.255), mk(0.40, 0.46, 0.34)}}}
	tol, why := x.quietTolerance("cpu")
	if tol <= 25 || !strings.Contains(why, "median deviation") {
		t.Errorf("shared: %g (%s); want above 25, from the run's own noise", tol, why)
	}
	if i, _ := measure.Suspect(cpusOf(mk(0.20, 0.20, 0.26).Repeats, "cpu"), tol); i >= 0 {
		t.Errorf("a repeat 30 %% off beside a hog is suspect at %g %%", tol)
	}
	if i, _ := measure.Suspect(cpusOf(mk(0.20, 0.20, 0.60).Repeats, "cpu"), tol); i < 0 {
		t.Errorf("a repeat 3 x off is not suspect at %g %%", tol)
	}
}

// TestDisturbedCalibrationProbeTakenAgain disturbs the calibration's first
// probe with a wait (others take 60 % of the fake board's core while it
// runs): the probe is judged against the two with no wait, taken again,
// kept in Calibration.Disturbed with its reason, left out of the probes the
// wait is chosen from and of the baseline, and its time counted as extra.
func TestDisturbedCalibrationProbeTakenAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("calibrates on the fake board")
	}
	t.Parallel() // judged on the fake board's control file alone (serverCoresOnly), whatever else runs
	e, control := calibratedSim(t)
	e.Load.Repeats = 1
	// The generator on its own CPU: on the fake board's, the board's real
	// CPU (which its "cpu" reading does not report) reads as others' work.
	e.Client.CPUs = []int{1}
	nowait, burst := 0, false
	log := &controlLog{on: func(line string) {
		switch {
		case strings.HasPrefix(line, "calibrate: db_latency = 0s:"):
			if nowait++; nowait == 2 {
				// The next probe (the first with a wait) runs in a burst.
				setControl(t, control, "cpu_ms=2 interference=60")
				burst = true
			}
		case burst && strings.Contains(line, "disturbed"):
			setControl(t, control, "cpu_ms=2")
			burst = false
		}
	}}
	out := t.TempDir()
	res, err := Run(context.Background(), e, Options{Target: disturbTarget, Out: out, Log: log, serverCoresOnly: true})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log)
	}
	cal := res.Calibration
	if cal == nil || len(cal.Disturbed) == 0 {
		t.Fatalf("calibration %+v; want the disturbed probe taken again\n%s", cal, log)
	}
	// Others' real work on the machine may disturb more probes; the first
	// is the burst's, on the server's core.
	// The burst starts after the second probe with no wait: the next probe
	// is the first with a wait, or a third with no wait when the machine
	// made the first two disagree.
	d := cal.Disturbed[0]
	if !strings.Contains(d.Note, "on the server's cores") {
		t.Errorf("disturbed probe %+v; want the burst's, with its reason", d)
	}
	again := false
	for _, p := range cal.Probes {
		if p.At.Equal(d.At) {
			t.Errorf("the disturbed probe is among the used ones: %+v", p)
		}
		again = again || p.WaitMs == d.WaitMs && p.At.After(d.At)
	}
	if !again {
		t.Errorf("probes %+v; want the disturbed wait (%.3f ms) probed again after it", cal.Probes, d.WaitMs)
	}
	b := res.Disturbance.Baseline
	if b == nil || b.Server == nil || b.Server.Level > 20 || res.Disturbance.ExtraSeconds <= 0 || res.Disturbance.Remeasured < 1 {
		t.Errorf("disturbance %+v baseline %+v; want a baseline without the burst, the re-probe counted", res.Disturbance, b)
	}
	md := reportMD(t, out)
	if !strings.Contains(md, "no: disturbed (other work took") {
		t.Errorf("report.md does not mark the disturbed probe:\n%s", md)
	}
}

func TestRecalibrationFollowsTheCalibrationsNoise(t *testing.T) {
	x := &experimentRunner{e: &Experiment{Calibrate: calibrate.Spec{Run: "g1", Clients: 10}, Disturbance: measure.Rules{CPUPerRequest: 25}},
		res: &outcome.Result{Disturbance: &outcome.Disturbance{CPU: "cpu"}}}
	// Beside a CPU-bound process the two probes with no wait differed by
	// 18 %: a drift of 30 % is within twice that.
	cal := &calibrate.Calibration{Reading: "cpu", Relative: true, Capacity: 90, Target: 60, Tolerance: 3, CPUNoise: 18,
		Probes: []calibrate.Probe{{CPUPerRequestMs: 0.2}, {WaitMs: 1, CPUPerRequestMs: 0.2}}}
	rp := &outcome.Repeat{Server: map[string]float64{"cpu": 54}, Total: outcome.Figures{Throughput: 0.54 / 0.00026}} // 0.26 ms, +30 %
	if got := x.recalibrationReason(cal, rp, 1); got != "" {
		t.Errorf("+30 %% with the calibration's noise 18 %%: %q; want no recalibration", got)
	}
	rp = &outcome.Repeat{Server: map[string]float64{"cpu": 54}, Total: outcome.Figures{Throughput: 0.54 / 0.0003}} // 0.3 ms, +50 %
	if got := x.recalibrationReason(cal, rp, 1); !strings.Contains(got, "4 x the 9.0 %") {
		t.Errorf("+50 %%: %q; want a recalibration naming the calibration's noise", got)
	}
}

// TestStealBehindAHog: a CPU-bound process takes the free time of the
// server's core, so the hypervisor's steal takes from it and the board
// alike and the interference stays where the baseline expects it; the
// steal beyond the baseline's still marks the span disturbed.
func TestStealBehindAHog(t *testing.T) {
	x := &experimentRunner{e: &Experiment{Disturbance: measure.Rules{Threshold: 10}},
		res: &outcome.Result{Disturbance: &outcome.Disturbance{Threshold: 10, Baseline: &measure.Baseline{Source: measure.FromCalibration}}}}
	b := x.res.Disturbance.Baseline
	b.Add(&measure.Span{Own: 30, Interference: 70, Capacity: 100, Steal: 1, HasSteal: true}, nil)
	b.Add(&measure.Span{Own: 32, Interference: 68, Capacity: 100, Steal: 0, HasSteal: true}, nil)
	judge := func(s measure.Span) *outcome.Repeat {
		rp := &outcome.Repeat{}
		x.judgeSpanOf(rp, &s, nil, &outcome.Interference{})
		return rp
	}
	if rp := judge(measure.Span{Own: 31, Interference: 69, Capacity: 100, Steal: 2, HasSteal: true}); rp.Disturbed {
		t.Errorf("the hog as at the baseline: disturbed (%s)", rp.Reason)
	}
	rp := judge(measure.Span{Own: 30, Interference: 70, Capacity: 100, Steal: 32, HasSteal: true})
	if !rp.Disturbed || !strings.Contains(rp.Reason, "the hypervisor took 32.0 % of a core from the server's cores (steal)") {
		t.Errorf("32 %% steal behind the hog: disturbed %v (%s); want disturbed by steal", rp.Disturbed, rp.Reason)
	}
	j := &probeJudge{x: x}
	j.accept(&measure.Span{Own: 50, Interference: 50, Capacity: 100, Steal: 1, HasSteal: true}, nil)
	if why := j.judge(&measure.Span{Own: 30, Interference: 70, Capacity: 100, Steal: 25, HasSteal: true}, nil); !strings.Contains(why, "(steal)") {
		t.Errorf("a probe behind the hog with 25 %% steal: %q; want disturbed by steal", why)
	}
}

// calibratedSim is a one-run experiment on the simulating fake board with
// a calibration of 2 correction probes, 60 s of max_extra and the fake's
// control file (returned) at cpu_ms=2: the set-up of the tests that
// disturb or move the board around its calibration. Clients, repeats and
// interleaving are the caller's.
func calibratedSim(t *testing.T) (*Experiment, string) {
	t.Helper()
	control := filepath.Join(t.TempDir(), "control")
	setControl(t, control, "cpu_ms=2")
	text := tinyText(t, "sim")
	text = strings.Replace(text, "[load]", "[calibrate]\n"+strings.Replace(calibrateSpec, "tolerance = 10", "tolerance = 10\nprobes = 2", 1)+
		"\n[disturbance]\nmax_extra = \"60s\"\n[load]", 1)
	text = strings.Replace(text, `"-admin-addr", "127.0.0.1:{{admin_port}}"]`, `"-admin-addr", "127.0.0.1:{{admin_port}}", "-wait={{db_latency}}"]`, 1)
	text = strings.Replace(text, `env = ["FAKE_BOARD_MODE=sim"]`, fmt.Sprintf(`env = ["FAKE_BOARD_MODE=sim", "FAKE_CONTROL=%s"]`, control), 1)
	text = strings.Replace(text, "[[stats.reading]]", "[[stats.reading]]\nname = \"cpu\"\npath = \"cpu_seconds_total\"\nkind = \"counter\"\nscale = 100\n[[stats.reading]]", 1)
	e, err := parse("sim.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	e.Dir = t.TempDir()
	e.Profile = profileSpec{}
	e.Load.Clients = []int{10}
	e.Load.Warmup, e.Load.Duration, e.Load.Think = 200*time.Millisecond, 2*time.Second, 0
	e.Runs = e.Runs[:1]
	return e, control
}

// TestStealBurstAtTheCalibration: a burst of steal that covered the whole
// calibration is no level of the machine's. Once the run reads the cores
// with less, steal beyond that is a disturbance, and the calibration is
// redone; a steal that never eases stays the machine's.
func TestStealBurstAtTheCalibration(t *testing.T) {
	newX := func(probeSteal ...float64) *experimentRunner {
		x := &experimentRunner{e: &Experiment{Calibrate: calibrate.Spec{Run: "g1", Clients: 10}, Disturbance: measure.Rules{Threshold: 10, CPUPerRequest: 25}},
			res: &outcome.Result{Disturbance: &outcome.Disturbance{Threshold: 10, CPU: "cpu", Baseline: &measure.Baseline{Source: measure.FromCalibration}}}}
		for _, st := range probeSteal {
			s := &measure.Span{Own: 50, Interference: st, Capacity: 100, Steal: st, HasSteal: true}
			x.judgeOf().See(s, nil)
			x.res.Disturbance.Baseline.Add(s, nil)
		}
		return x
	}
	judge := func(x *experimentRunner, steal float64) *outcome.Repeat {
		rp := &outcome.Repeat{}
		s := measure.Span{Own: 50, Interference: steal, Capacity: 100, Steal: steal, HasSteal: true}
		x.judgeSpanOf(rp, &s, nil, &outcome.Interference{})
		return rp
	}
	cal := &calibrate.Calibration{Reading: "cpu", Relative: true, Capacity: 90, Target: 60, Tolerance: 3, Steal: ptrTo(39.0),
		Probes: []calibrate.Probe{{CPUPerRequestMs: 0.2}, {WaitMs: 1, CPUPerRequestMs: 0.2}}}
	at := &outcome.Repeat{Server: map[string]float64{"cpu": 54}, Total: outcome.Figures{Throughput: 0.54 / 0.0002}} // 0.2 ms, 60 % of 90

	x := newX(38, 40)
	if rp := judge(x, 35); rp.Disturbed {
		t.Errorf("35 %% steal as at the calibration: disturbed (%s); the run has read nothing lower yet", rp.Reason)
	}
	if got := x.recalibrationReason(cal, at, 1); got != "" {
		t.Errorf("nothing lower read yet: %q; want no recalibration", got)
	}
	if rp := judge(x, 2); rp.Disturbed {
		t.Errorf("2 %% steal: disturbed (%s)", rp.Reason)
	}
	rp := judge(x, 35)
	if !rp.Disturbed || !strings.Contains(rp.Reason, "took 35.0 % of a core from the server's cores (steal) where the machine had 2.0") {
		t.Errorf("35 %% steal after the run read 2: disturbed %v (%s); want disturbed against 2", rp.Disturbed, rp.Reason)
	}
	if got := x.recalibrationReason(cal, at, 1); !strings.Contains(got, "the calibration ran while the hypervisor took 39.0 %") || !strings.Contains(got, "with 2.0") {
		t.Errorf("calibrated at 39 %% steal, the run read 2: %q; want a recalibration saying so", got)
	}

	// Steal that never eases: 20 % at the calibration, 15-24 % after.
	x = newX(19, 21)
	for _, st := range []float64{18, 24, 15, 22} {
		if rp := judge(x, st); rp.Disturbed {
			t.Errorf("steady steal, %g %%: disturbed (%s)", st, rp.Reason)
		}
	}
	cal.Steal = ptrTo(20.0)
	if got := x.recalibrationReason(cal, at, 1); got != "" {
		t.Errorf("steady steal: %q; want no recalibration", got)
	}
}

// TestNoRecalibrationWithoutTwoSweepsAfter: a calibration redone before
// the last sweep would leave the claims one sweep on it and no spread, so
// the moved point is noted and the calibration kept.
func TestNoRecalibrationWithoutTwoSweepsAfter(t *testing.T) {
	x := &experimentRunner{e: &Experiment{Calibrate: calibrate.Spec{Var: "wait", Run: "g1", Clients: 10}, Load: loadSpec{Repeats: 3},
		Disturbance: measure.Rules{Threshold: 10, CPUPerRequest: 25, MaxExtra: cli.Duration(time.Minute)}},
		res: &outcome.Result{Disturbance: &outcome.Disturbance{CPU: "cpu"}}, logf: func(string, ...any) {}, feed: feed.New(live.New(), "x")}
	x.res.Calibration = &calibrate.Calibration{Reading: "cpu", Relative: true, Capacity: 90, Target: 60, Tolerance: 3, Value: "1ms",
		Probes: []calibrate.Probe{{CPUPerRequestMs: 0.2}, {WaitMs: 1, CPUPerRequestMs: 0.2}}}
	rp := &outcome.Repeat{Repeat: 2, Server: map[string]float64{"cpu": 54}, Total: outcome.Figures{Throughput: 0.54 / 0.0004}} // 0.4 ms, +100 %
	lr := &serverRun{run: runSpec{Name: "g1"}, rr: &outcome.Run{Name: "g1", Points: []*outcome.Point{{Clients: 10, Repeats: []*outcome.Repeat{rp}}}}}
	if err := x.recalibrate(context.Background(), []*serverRun{lr}, 2); err != nil {
		t.Fatal(err)
	}
	if x.res.Recalibration != nil || len(x.res.Notes) != 1 || !strings.Contains(x.res.Notes[0], "the calibration was not redone, 1 sweep(s) left after it and the claims need 2") {
		t.Errorf("after sweep 2 of 3: recalibration %+v, notes %q; want none, and a note saying why", x.res.Recalibration, x.res.Notes)
	}
	if rp.Dropped {
		t.Errorf("the moved measurement was dropped (%s); want it kept", rp.Reason)
	}
}
