package experiment

import (
	"slices"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest/claim"
)

const (
	quickClients  = 3
	quickWarmup   = time.Second
	quickDuration = 3 * time.Second
)

// MakeQuick turns e into a quick run, to try a file in a minute or so.
func (e *Experiment) MakeQuick() {
	e.Quick = true
	l := &e.Load
	l.Repeats = 1
	l.Warmup, l.Duration = min(l.Warmup, quickWarmup), min(l.Duration, quickDuration)
	for i := range e.Runs { // a run's own, where it sets them
		r := &e.Runs[i].Settings
		r.Warmup, r.Duration = min(r.Warmup, quickWarmup), min(r.Duration, quickDuration)
	}
	if s := int(l.Duration / time.Second); e.Profile.Seconds == 0 || e.Profile.Seconds > s {
		e.Profile.Seconds = max(s, 1)
	}
	l.Clients = quickCounts(e)
	e.Disturbance.MaxExtra = cli.Duration(min(e.maxExtra(), 2*e.stepLength()))
	c := &e.Calibrate
	// A probe keeps a warm-up of a second, for the gauges' last second.
	c.Warmup = cli.Duration(min(time.Duration(c.Warmup), quickWarmup))
	c.Duration = cli.Duration(min(time.Duration(c.Duration), 2*time.Second))
}

// quickCounts chooses the client counts of a quick run: those a claim or
// the profile names, then the last, the first and one from the middle.
func quickCounts(e *Experiment) []int {
	all := e.Load.Clients
	if len(all) <= quickClients {
		return all
	}
	keep := map[int]bool{}
	for _, c := range e.Claims {
		for _, k := range c.Checks {
			for _, o := range []claim.Operand{k.Left, k.Right} {
				switch {
				case o.Clients != 0:
					keep[o.Clients] = true
				case o.At == "last":
					keep[all[len(all)-1]] = true
				case o.At == "first":
					keep[all[0]] = true
				}
			}
		}
	}
	if len(e.Profile.Kinds) > 0 && e.Profile.URL != "" {
		keep[e.profileAt()] = true
	}
	for _, c := range []int{all[len(all)-1], all[0], all[len(all)/2]} {
		if len(keep) >= quickClients {
			break
		}
		keep[c] = true
	}
	return slices.Clip(slices.DeleteFunc(slices.Clone(all), func(c int) bool { return !keep[c] }))
}
