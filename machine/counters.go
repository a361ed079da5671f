package machine

import (
	"errors"
	"fmt"
	"slices"
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
// its own differences (a Prometheus scrape and rate(), the load
// generator over its measured span). They count from boot, so only their
// increase means something.
type Counters struct {
	// At is when they were read.
	At time.Time
	// CPUs counts the machine's CPUs.
	CPUs int
	// Modes is the CPU time by mode, in allModes' order, holding only
	// the modes this OS counts (all on Linux; user, nice, system and idle
	// on macOS; user, system and idle on Windows): a mode the OS lacks is
	// absent, never 0.
	Modes []ModeSeconds
	// Own is the CPU time of the CPUs this process may run on; nil where
	// the affinity could not be read.
	Own *OwnCounters
}

// OwnCounters are the cumulative counters of the CPUs this process may run
// on (its affinity; off Linux, where the affinity is not read, all CPUs),
// behind Reading.OwnCPUs.
type OwnCounters struct {
	// CPUs are the CPUs of the process's affinity, or all the machine's
	// when AffinityUnknown (off Linux: the lab does not pin there, so a
	// process of its own runs on all of them).
	CPUs            []int
	AffinityUnknown bool
	// MachineCPUs is how many CPUs the machine has: CPUs fewer than it,
	// with the affinity known, are a pinned process's.
	MachineCPUs int
	// BusySeconds is their time neither idle nor waiting for I/O, summed
	// over them (steal included: a stolen tick is not idle): its rate
	// over a span divided by len(CPUs) is OwnCPUs.Busy over that span (as
	// a fraction, not a percent).
	BusySeconds float64
	// InterferenceSeconds is BusySeconds minus this process's CPU time
	// (user and system) read at the same moment: the time of its CPUs
	// that something else used (other processes, kernel work not charged
	// to it, the hypervisor's steal). Its increase over a span is that
	// span's interference. nil where the process's CPU time cannot be
	// read. Sampler.Counters never lets it go down (see there).
	InterferenceSeconds *float64
	// StealSeconds is the hypervisor's steal on these CPUs, summed over
	// them: part of BusySeconds and of InterferenceSeconds. nil where the
	// OS does not count steal (macOS, Windows).
	StealSeconds *float64
}

// ReadCounters reads this machine's CPU counters now, as
// Sampler.Counters does but without a Sampler (for the load generator,
// which takes them at the two ends of its measured span): from /proc on
// Linux, through gopsutil elsewhere. Its InterferenceSeconds is the raw
// difference; OwnCounters.Since clamps a span's.
func ReadCounters() (Counters, error) { return readCounters(defaultPlatform()) }

// Counters reads the machine's CPU counters now, from the platform the
// Sampler reads (not from its last sample: a scrape sees the counters of
// its own moment). The error says why they are missing; Own is nil when
// only the affinity is.
//
// Own.InterferenceSeconds never goes down between two calls on one
// Sampler: /proc/stat's busy time is charged a whole scheduler tick at a
// time and printed in 10 ms units, while the process's CPU time is
// precise, so just after the process ran their difference may dip by a
// tick or two per CPU. A dip is held at the highest value read before
// (a counter that went down would read as a reset to Prometheus's rate());
// the next rise then makes it up, so a span's increase is never negative
// and is exact once the dip has passed. When the affinity changes (taskset
// -p on a running process), the sum over the new CPUs goes on from the
// value last returned rather than jump.
func (s *Sampler) Counters() (Counters, error) {
	c, err := readCounters(s.p)
	if err != nil || c.Own == nil || c.Own.InterferenceSeconds == nil {
		return c, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	raw := *c.Own.InterferenceSeconds
	if !slices.Equal(c.Own.CPUs, s.interferenceCPUs) {
		if s.interferenceCPUs != nil {
			s.interferenceBase = s.interferenceHigh - raw
		}
		s.interferenceCPUs = c.Own.CPUs
	}
	v := max(raw+s.interferenceBase, s.interferenceHigh)
	s.interferenceHigh = v
	c.Own.InterferenceSeconds = &v
	return c, nil
}

// readCounters reads p's counters: the CPU times, then at once this
// process's CPU time, so that the two describe the same moment.
func readCounters(p platform) (Counters, error) {
	all, per, err := p.cpu()
	if err != nil {
		return Counters{}, err
	}
	user, system, procErr := p.process()
	c := Counters{At: time.Now(), CPUs: len(per)}
	unit := p.cpuUnit()
	sec := func(ticks uint64) float64 { return (time.Duration(ticks) * unit).Seconds() }
	byMode := map[string]uint64{
		"user": all.user, "nice": all.nice, "system": all.system, "idle": all.idle,
		"iowait": all.iowait, "irq": all.irq, "softirq": all.softirq, "steal": all.steal,
	}
	for _, m := range p.cpuModes() {
		v, ok := byMode[m]
		if !ok {
			return Counters{}, fmt.Errorf("cpu mode %q: not one of %v", m, allModes)
		}
		c.Modes = append(c.Modes, ModeSeconds{Mode: m, Seconds: sec(v)})
	}
	own, unknown, err := ownOrAll(p, len(per))
	if err != nil || !validCPUs(own, len(per)) {
		return c, nil
	}
	var busy, steal uint64
	for _, i := range own {
		busy += per[i].total() - per[i].idle - per[i].iowait
		steal += per[i].steal
	}
	o := &OwnCounters{CPUs: own, AffinityUnknown: unknown, MachineCPUs: len(per), BusySeconds: sec(busy)}
	if procErr == nil {
		v := sec(busy) - (user + system).Seconds()
		o.InterferenceSeconds = &v
	}
	if _, hasSteal := p.cpuKinds(); hasSteal {
		v := sec(steal)
		o.StealSeconds = &v
	}
	c.Own = o
	return c, nil
}

// ownOrAll returns the CPUs this process may run on: its affinity, or all
// n CPUs where the OS gives no affinity (unknown is then true). A failed
// read of an affinity the OS has is an error.
func ownOrAll(p platform, n int) (own []int, unknown bool, err error) {
	own, err = p.affinity()
	if errors.Is(err, errUnavailable) {
		own = make([]int, n)
		for i := range own {
			own[i] = i
		}
		return own, true, nil
	}
	return own, false, err
}

// validCPUs reports whether own names at least one CPU, each of n.
func validCPUs(own []int, n int) bool {
	for _, i := range own {
		if i < 0 || i >= n {
			return false
		}
	}
	return len(own) > 0
}

// OwnSpan is how a process's CPUs were used between two reads of their
// counters, in seconds summed over them.
type OwnSpan struct {
	CPUs                []int
	BusySeconds         float64
	InterferenceSeconds float64
	// StealSeconds is nil where the OS does not count steal.
	StealSeconds *float64
	// Clamped says the interference came out below 0 (by the rounding of
	// the CPU counters: see Sampler.Counters) and was taken as 0.
	Clamped bool
}

// Since returns how the CPUs were used from prev to o; false when either
// read lacks the interference or the two name different CPUs (the
// affinity changed in between).
func (o OwnCounters) Since(prev OwnCounters) (OwnSpan, bool) {
	if o.InterferenceSeconds == nil || prev.InterferenceSeconds == nil || !slices.Equal(o.CPUs, prev.CPUs) {
		return OwnSpan{}, false
	}
	sp := OwnSpan{CPUs: o.CPUs, BusySeconds: max(0, o.BusySeconds-prev.BusySeconds)}
	sp.InterferenceSeconds = *o.InterferenceSeconds - *prev.InterferenceSeconds
	if sp.InterferenceSeconds < 0 {
		sp.InterferenceSeconds, sp.Clamped = 0, true
	}
	if o.StealSeconds != nil && prev.StealSeconds != nil {
		v := max(0, *o.StealSeconds-*prev.StealSeconds)
		sp.StealSeconds = &v
	}
	return sp, true
}
