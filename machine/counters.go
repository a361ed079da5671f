package machine

import (
	"fmt"
	"time"
)

// allModes are the modes of /proc/stat's CPU lines, in its order.
var allModes = []string{"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"}

// ModeSeconds is the CPU time the machine spent in one mode since boot,
// summed over its CPUs.
type ModeSeconds struct {
	Mode    string // user, nice, system, idle, iowait, irq, softirq or steal
	Seconds float64
}

// Counters are the machine's cumulative CPU counters read now: what a
// Reading's percentages are the differences of, for a reader that takes
// its own differences (a Prometheus scrape and rate()). They count from
// boot, so only their increase means something.
type Counters struct {
	// CPUs counts the machine's CPUs.
	CPUs int
	// Modes is the CPU time by mode, in allModes' order, holding only
	// the modes this OS counts (all on Linux; user, nice, system and idle
	// on macOS; user, system and idle on Windows): a mode the OS lacks is
	// absent, never 0.
	Modes []ModeSeconds
	// Own is the CPU time of the CPUs this process may run on; nil where
	// the affinity cannot be read (off Linux).
	Own *OwnCounters
}

// OwnCounters are the cumulative counters behind Reading.OwnCPUs.
type OwnCounters struct {
	// CPUs counts the CPUs of the process's affinity.
	CPUs int
	// BusySeconds is their time neither idle nor waiting for I/O, summed
	// over them: its rate over a span divided by CPUs is OwnCPUs.Busy
	// over that span (as a fraction, not a percent).
	BusySeconds float64
}

// Counters reads the machine's CPU counters now, from the platform the
// Sampler reads (not from its last sample: a scrape sees the counters of
// its own moment). The error says why they are missing; Own is nil when
// only the affinity is.
func (s *Sampler) Counters() (Counters, error) {
	all, per, err := s.p.cpu()
	if err != nil {
		return Counters{}, err
	}
	unit := s.p.cpuUnit()
	sec := func(ticks uint64) float64 { return (time.Duration(ticks) * unit).Seconds() }
	byMode := map[string]uint64{
		"user": all.user, "nice": all.nice, "system": all.system, "idle": all.idle,
		"iowait": all.iowait, "irq": all.irq, "softirq": all.softirq, "steal": all.steal,
	}
	c := Counters{CPUs: len(per)}
	for _, m := range s.p.cpuModes() {
		v, ok := byMode[m]
		if !ok {
			return Counters{}, fmt.Errorf("cpu mode %q: not one of %v", m, allModes)
		}
		c.Modes = append(c.Modes, ModeSeconds{Mode: m, Seconds: sec(v)})
	}
	if own, err := s.p.affinity(); err == nil {
		var busy uint64
		ok := len(own) > 0
		for _, i := range own {
			if i < 0 || i >= len(per) {
				ok = false
				break
			}
			busy += per[i].total() - per[i].idle - per[i].iowait
		}
		if ok {
			c.Own = &OwnCounters{CPUs: len(own), BusySeconds: sec(busy)}
		}
	}
	return c, nil
}
