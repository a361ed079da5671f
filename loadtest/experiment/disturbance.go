package experiment

import (
	"slices"
	"time"
)

// A measured span is judged by the one disturbance rule
// (loadtest/measure): the file's [disturbance] is its measure.Rules, the
// baseline is the calibration's probes or, with none, the undisturbed
// steps so far.

// maxExtra is the file's budget of extra measuring time, or its default:
// a quarter of the planned steps' time.
func (e *Experiment) maxExtra() time.Duration {
	if m := time.Duration(e.Disturbance.MaxExtra); m > 0 {
		return m
	}
	n := len(e.Runs) * len(e.Load.Clients) * max(e.Load.Repeats, 1)
	return time.Duration(n) * e.stepLength() / 4
}

// stepLength is one measurement's planned length, warm-up included: the
// longest of the runs' (a run may set its own warm-up and duration).
func (e *Experiment) stepLength() time.Duration {
	d := e.Load.Warmup + e.Load.Duration
	for _, r := range e.Runs {
		s := e.runSettings(r)
		d = max(d, s.Warmup+s.Duration)
	}
	return d
}

// coreOverlap is the share of a's cores that are also b's (0..1).
func coreOverlap(a, b []int) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for _, c := range a {
		if slices.Contains(b, c) {
			n++
		}
	}
	return float64(n) / float64(len(a))
}
