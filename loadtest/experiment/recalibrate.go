package experiment

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"time"

	"bbslab/loadtest/calibrate"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/outcome"
)

// calibrationInForce is the redone calibration, or the first.
func calibrationInForce(r *outcome.Result) *calibrate.Calibration {
	return cmp.Or(r.Recalibration, r.Calibration)
}

// recalibrate redoes the calibration after sweep when its point moved,
// once at most, within max_extra, and sets the new wait on every server.
// Only interleaved runs are, or the runs would differ in their wait.
func (x *experimentRunner) recalibrate(ctx context.Context, live []*serverRun, sweep int) error {
	c, cal, cpu := x.e.Calibrate, calibrationInForce(x.res), x.res.Disturbance.CPU
	if c.Var == "" || cal == nil || len(cal.Probes) == 0 || x.recalTried || cpu == "" {
		return nil
	}
	i := slices.IndexFunc(live, func(lr *serverRun) bool { return lr.run.Name == c.Run })
	if i < 0 {
		return nil
	}
	lr := live[i]
	var at *outcome.Repeat
	for _, p := range lr.rr.Points {
		for _, rp := range p.Used() {
			if p.Clients == c.Clients && rp.Repeat == sweep {
				at = rp
			}
		}
	}
	if at == nil {
		return nil
	}
	reason := x.recalibrationReason(cal, at, sweep)
	if reason == "" {
		return nil
	}
	x.recalTried = true
	if left := x.e.Load.Repeats - sweep; left < minSweepsAfter {
		x.note(fmt.Sprintf("%s: the calibration was not redone, %d sweep(s) left after it and the claims need %d on one calibration", reason, left, minSweepsAfter))
		return nil
	}
	need := time.Duration(c.Probes+2) * (time.Duration(c.Warmup) + time.Duration(c.Duration))
	if !x.fits(need) {
		x.note(reason + ": the calibration was not redone, too little time left in disturbance.max_extra")
		return nil
	}
	x.note(reason + fmt.Sprintf(": the calibration is redone before sweep %d", sweep+1))
	start, before := time.Now(), x.budgetOf().Used
	redone, err := x.calibrateOn(ctx, lr)
	x.budgetOf().Used = before // all of it is extra, counted once
	x.spent(time.Since(start))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		x.note(fmt.Sprintf("the calibration could not be redone (%v): the runs keep %s = %s", err, c.Var, cal.Value))
		return x.setWait(ctx, []*serverRun{lr}, cal.Value)
	}
	redone.Sweep, redone.Reason = sweep+1, reason
	x.res.Recalibration = redone
	x.recals++
	x.note(fmt.Sprintf("redone before sweep %d: %s", sweep+1, redone.Summary()))
	if err := x.setWait(ctx, live, redone.Value); err != nil {
		return err
	}
	x.leaveOutEarlier(live, cal, redone)
	return nil
}

// minSweepsAfter is the least sweeps a redone calibration must have left.
const minSweepsAfter = 2

// leaveOutEarlier drops the live runs' measurements taken on an earlier
// calibration: on another wait, they are not repeats of the same points.
func (x *experimentRunner) leaveOutEarlier(live []*serverRun, was, redone *calibrate.Calibration) {
	c := x.e.Calibrate
	why := fmt.Sprintf("measured on the calibration before it was redone (%s = %s; %s from sweep %d)", c.Var, was.Value, redone.Value, redone.Sweep)
	for _, lr := range live {
		for _, p := range lr.rr.Points {
			n := 0
			for _, rp := range p.Repeats {
				if rp.Calibration < x.recals && !rp.Dropped {
					rp.Drop(why)
					rp.Recalibrated = true
					n++
				}
			}
			if n > 0 {
				refresh(p, x.e.Load)
			}
		}
	}
}

// recalibrationReason says why the calibration must be redone after
// sweep, at being its point's measurement there; "" when it need not.
func (x *experimentRunner) recalibrationReason(cal *calibrate.Calibration, at *outcome.Repeat, sweep int) string {
	c, cpu := x.e.Calibrate, x.res.Disturbance.CPU
	where := fmt.Sprintf("at the calibration's point (%s at %s)", c.Run, outcome.ClientsText(c.Clients))
	ref := cal.Probes[len(cal.Probes)-1].CPUPerRequestMs
	tol, why := cpuTolerance(cal, &x.e.Disturbance)
	if got, ok := cpuPerRequest(at, cpu); ok && ref > 0 && math.Abs(got-ref)/ref*100 > tol {
		return fmt.Sprintf("the board's CPU per request %s was %.3f ms in sweep %d against the calibration's %.3f ms (%+.0f %%; %s)",
			where, got, sweep, ref, 100*(got-ref)/ref, why)
	}
	if floor, ok := x.judgeOf().Floor(true); cal.Steal != nil && ok && *cal.Steal-floor > x.e.Disturbance.Threshold {
		return fmt.Sprintf("the calibration ran while the hypervisor took %.1f %% of a core from the server's cores (steal); by sweep %d the run read them with %.1f (threshold %g points)",
			*cal.Steal, sweep, floor, x.e.Disturbance.Threshold)
	}
	v, ok := at.Server[cal.Reading]
	if !ok {
		return ""
	}
	unit := ""
	if cal.Relative {
		if cal.Capacity <= 0 {
			return ""
		}
		v, unit = v/cal.Capacity*100, " % of the capacity"
	}
	if band := 2 * cal.Tolerance; math.Abs(v-cal.Target) > band {
		return fmt.Sprintf("%s at the calibration's point (%s at %s) read %.1f%s in sweep %d, beyond the calibration's %g ± %g (twice its tolerance)",
			cal.Reading, c.Run, outcome.ClientsText(c.Clients), v, unit, sweep, cal.Target, band)
	}
	return ""
}

// cpuTolerance is how far, in %, the CPU per request at the calibration's point may move, and why.
func cpuTolerance(cal *calibrate.Calibration, rules *measure.Rules) (float64, string) {
	// Each probe is half their difference off their middle.
	noise := cal.CPUNoise / 2
	if tol, fromNoise := rules.Tolerance(noise); fromNoise {
		return tol, fmt.Sprintf("%d x the %.1f %% each of the calibration's two probes with no wait was off their middle, above disturbance.cpu_per_request %g %%", measure.NoiseTimes, noise, rules.CPUPerRequest)
	}
	return rules.CPUPerRequest, fmt.Sprintf("disturbance.cpu_per_request %g %%", rules.CPUPerRequest)
}

// movedFromCalibration says why the claims on the calibration's share cannot stand, "" if they can.
func movedFromCalibration(r *outcome.Result) string {
	cal := calibrationInForce(r)
	if cal == nil || cal.Share == "" || len(cal.Probes) == 0 || r.Disturbance == nil || r.Disturbance.CPU == "" {
		return ""
	}
	ref := cal.Probes[len(cal.Probes)-1].CPUPerRequestMs
	ri := slices.IndexFunc(r.Runs, func(rr *outcome.Run) bool { return rr.Name == cal.Run })
	if ref <= 0 || ri < 0 {
		return ""
	}
	var cpus []float64
	for _, p := range r.Runs[ri].Points {
		if p.Clients == cal.Clients {
			cpus = append(cpus, cpusOf(p.Used(), r.Disturbance.CPU)...)
		}
	}
	cpus = slices.DeleteFunc(cpus, math.IsNaN)
	if len(cpus) == 0 {
		return ""
	}
	got := measure.Median(cpus)
	tol, why := cpuTolerance(cal, &measure.Rules{CPUPerRequest: r.Disturbance.CPUPerRequest})
	if math.Abs(got-ref)/ref*100 <= tol {
		return ""
	}
	which := "calibration"
	if cal == r.Recalibration {
		which = "redone calibration"
	}
	return fmt.Sprintf("the machine moved from its calibration: the board's CPU per request at the calibration's point (%s at %s) was %.3f ms (%.3f-%.3f over %d used repeats) against the %s's %.3f ms (%+.0f %%; %s), so the wait it chose no longer put the board at its point and %q measures the machine",
		cal.Run, outcome.ClientsText(cal.Clients), got, slices.Min(cpus), slices.Max(cpus), len(cpus), which, ref, 100*(got-ref)/ref, why, cal.Share)
}

func (x *experimentRunner) setWait(ctx context.Context, servers []*serverRun, v string) error {
	c := x.e.Calibrate
	for _, lr := range servers {
		if _, err := post(ctx, lr.x(expand(c.Set, map[string]string{c.Var: url.QueryEscape(v)})), 10*time.Second); err != nil {
			return fmt.Errorf("run %q: set %s = %s: %w", lr.run.Name, c.Var, v, err)
		}
	}
	return nil
}
