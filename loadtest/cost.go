package loadtest

import (
	"fmt"
	"runtime"
	"time"

	"bbslab/machine"
)

// Cost is what the generator itself used during a run (JBentoGohan's
// article on its load tool: a load client that runs out of CPU or stops for
// GC measures itself, not the server).
type Cost struct {
	// WallSeconds is the run's length; CPUSeconds user plus system time of
	// the generator process; CPUPercent is CPU over wall time, in percent
	// of one core. The CPU figures are absent (nil, left out of the JSON)
	// where the OS gives no process times: never 0.
	WallSeconds float64  `json:"wall_seconds"`
	CPUSeconds  *float64 `json:"cpu_seconds,omitempty"`
	UserSeconds *float64 `json:"user_seconds,omitempty"`
	SysSeconds  *float64 `json:"sys_seconds,omitempty"`
	CPUPercent  *float64 `json:"cpu_percent,omitempty"`
	// PeakRSSBytes is the process's peak resident set (getrusage; over the
	// process lifetime), absent where the OS does not give it (Windows).
	// PeakGoBytes is the largest memory mapped by the Go runtime sampled
	// each second during the run.
	PeakRSSBytes *int64 `json:"peak_rss_bytes,omitempty"`
	PeakGoBytes  uint64 `json:"peak_go_bytes"`
	// GCCycles and GCPauseMaxMs: collections during the run and the longest
	// stop-the-world pause (upper bound of its histogram bucket).
	GCCycles     uint64  `json:"gc_cycles"`
	GCPauseMaxMs float64 `json:"gc_pause_max_ms"`
	// Goroutines is the peak number of goroutines.
	Goroutines int `json:"goroutines"`
	// ScheduleLagMaxMs is the largest actual − intended send time. In the
	// rate model it includes requests held back by slow responses.
	ScheduleLagMaxMs float64 `json:"schedule_lag_max_ms"`
	// LateRequests were already due when their client got to them (rate
	// model: the previous response outlived the think time; open model:
	// sent more than 1 ms after arrival).
	LateRequests int64 `json:"late_requests"`
	// TimerLagP99Ms and TimerLagMaxMs measure how late clients woke up from
	// their think time: lag the generator caused itself.
	TimerLagMeanMs float64 `json:"timer_lag_mean_ms"`
	TimerLagP99Ms  float64 `json:"timer_lag_p99_ms"`
	TimerLagMaxMs  float64 `json:"timer_lag_max_ms"`
	// Cores is how the generator's CPUs (its affinity; all CPUs when it
	// is not pinned) were used over the measured span; nil where the OS
	// cannot say.
	Cores *CoresUse `json:"cores,omitempty"`
	// Bottleneck is set when the generator may have limited the run;
	// Reasons says why.
	Bottleneck bool     `json:"bottleneck"`
	Reasons    []string `json:"reasons,omitempty"`
}

// timerSlack is timer lateness that is normal on an idle machine and never
// counts as the generator falling behind: the clients' alarm (a timerfd on
// Linux) and the runtime's timers, used elsewhere, wake late by up to about
// that much on an idle machine (docs/measurements.md).
const timerSlack = time.Millisecond

// costMeter measures a run's cost from start to finish, and the use of
// the generator's CPUs over the measured span.
type costMeter struct {
	t0      time.Time
	use0    procUsage
	r0, cur machine.Runtime
	peakGo  uint64
	peakGor int
	// cores0 are the counters of the generator's CPUs at the start of the
	// measured span (nil where they cannot be read); cores their use over
	// it, once it has ended.
	cores0 *machine.Counters
	cores  *CoresUse
}

func startCost() *costMeter {
	m := &costMeter{t0: time.Now()}
	m.use0 = selfUsage()
	m.r0 = machine.ReadRuntime()
	m.sample()
	return m
}

// sample records the peaks; it is called about once a second.
func (m *costMeter) sample() {
	m.cur = machine.ReadRuntime()
	m.peakGo = max(m.peakGo, m.cur.MemoryTotalBytes-m.cur.MemoryReleasedBytes)
	m.peakGor = max(m.peakGor, runtime.NumGoroutine())
}

// spanStart reads the counters of the generator's CPUs as the measured
// span starts.
func (m *costMeter) spanStart() {
	if c, err := machine.ReadCounters(); err == nil && c.Own != nil {
		m.cores0 = &c
	}
}

// spanEnd reads them again as the span ends and keeps the CPUs' use in
// between; nothing when the span never started (a run interrupted in its
// warm-up) or the counters could not be read.
func (m *costMeter) spanEnd() {
	if m.cores0 == nil {
		return
	}
	c, err := machine.ReadCounters()
	if err != nil || c.Own == nil {
		return
	}
	m.cores = coresUse(*m.cores0.Own, *c.Own, c.At.Sub(m.cores0.At))
}

// coresUse is how the CPUs were used from prev to last, over wall time;
// nil when the two reads do not make a span (machine.OwnCounters.Since).
func coresUse(prev, last machine.OwnCounters, wall time.Duration) *CoresUse {
	sp, ok := last.Since(prev)
	if !ok || wall <= 0 {
		return nil
	}
	pct := func(sec float64) float64 { return round3(100 * sec / wall.Seconds()) }
	u := &CoresUse{CPUs: sp.CPUs, Busy: pct(sp.BusySeconds), Interference: pct(sp.InterferenceSeconds),
		Pinned: !last.AffinityUnknown && len(sp.CPUs) < last.MachineCPUs}
	if sp.StealSeconds != nil {
		u.Steal = ptr(pct(*sp.StealSeconds))
	}
	return u
}

// finish computes the cost. think is the mean think time (0 for none).
func (m *costMeter) finish(lag lagAcc, think time.Duration) Cost {
	m.sample()
	use := selfUsage()
	wall := time.Since(m.t0).Seconds()
	timerP99 := lag.timer.Quantile(0.99) // lagTotals always sets lag.timer
	c := Cost{
		WallSeconds:      round3(wall),
		PeakGoBytes:      m.peakGo,
		Goroutines:       m.peakGor,
		ScheduleLagMaxMs: ms(lag.max),
		LateRequests:     lag.late,
		TimerLagMaxMs:    ms(lag.timerMax),
		TimerLagP99Ms:    ms(timerP99),
		TimerLagMeanMs:   ms(lag.timer.Mean()),
		Cores:            m.cores,
	}
	if use.ok && m.use0.ok {
		user := (use.user - m.use0.user).Seconds()
		sys := (use.sys - m.use0.sys).Seconds()
		c.UserSeconds, c.SysSeconds, c.CPUSeconds = ptr(round3(user)), ptr(round3(sys)), ptr(round3(user+sys))
		if wall > 0 {
			c.CPUPercent = ptr(round3(100 * (user + sys) / wall))
		}
		c.PeakRSSBytes = use.maxRSS
	}
	c.GCCycles = m.cur.GCCycles - m.r0.GCCycles
	c.GCPauseMaxMs = machine.HistogramMaxNew(m.r0.GCPauses, m.cur.GCPauses) * 1000
	if cpu, ok := c.CPU(); ok && cpu > 80 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("the generator used %.0f%% of a core (over 80%%)", cpu))
	}
	// Only lag beyond normal timer lateness says the generator fell behind.
	if think > 0 && timerP99 > think/10 && timerP99 > timerSlack {
		c.Reasons = append(c.Reasons, fmt.Sprintf("clients woke up late: p99 timer lag %.3g ms exceeds 10%% of the %v think time", c.TimerLagP99Ms, think))
	}
	c.Bottleneck = len(c.Reasons) > 0
	return c
}

// CPU returns the generator's CPU in percent of one core; false where the
// OS gave no process times.
func (c Cost) CPU() (float64, bool) {
	if c.CPUPercent == nil {
		return 0, false
	}
	return *c.CPUPercent, true
}

// CPUText is the generator's CPU in percent of one core printed with the
// fmt verb format, or "–" where it is absent.
func (c Cost) CPUText(format string) string {
	if v, ok := c.CPU(); ok {
		return fmt.Sprintf(format, v)
	}
	return "–"
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

func ptr[T any](v T) *T { return &v }

// procUsage is the process's own CPU time and peak resident set
// (machine.ReadProcessUsage: getrusage, or GetProcessTimes on Windows); ok
// is false where they cannot be read, and the run's warnings say so.
type procUsage struct {
	user, sys time.Duration
	maxRSS    *int64 // bytes; nil where the OS does not give it
	ok        bool
}

// selfUsage reads the process's CPU time and peak resident set.
func selfUsage() procUsage {
	u, err := machine.ReadProcessUsage()
	if err != nil {
		return procUsage{}
	}
	return procUsage{user: u.User, sys: u.System, maxRSS: u.PeakRSSBytes, ok: true}
}

// CoresUse is how a process's CPUs were used over a span, in % of one
// core (100: one CPU's whole time): busy whoever kept them so,
// Interference the part not spent by the process (other processes, kernel
// work not charged to it, the hypervisor's steal), Steal the hypervisor's
// part, absent where the OS does not count it. They come from cumulative
// counters read at the span's two ends (machine.ReadCounters): the
// CPUs' busy time from the kernel's ticks, the process's CPU time from
// getrusage (GetProcessTimes on Windows). Off Linux the affinity is not
// read and CPUs are all the machine's, so the interference there is the
// machine's busy time minus the process's, a server on the same machine
// included. An interference that came out below 0 by the ticks' rounding
// reads 0.
type CoresUse struct {
	CPUs         []int    `json:"cpus"`
	Busy         float64  `json:"busy_percent"`
	Interference float64  `json:"interference_percent"`
	Steal        *float64 `json:"steal_percent,omitempty"`
	// Pinned says its CPUs are fewer than the machine's (its affinity, read
	// on Linux): the process was pinned (taskset, or a lab's cpus), and no
	// other process of the lab runs on them unless pinned there too. The
	// Go runtime's NumCPU cannot tell: it counts the affinity.
	Pinned bool `json:"pinned,omitempty"`
}

// Text is the use in a sentence, "its CPUs [1] over the measured span:
// busy 52.0%, others 3.1% (steal 1.2%) of a core".
func (u CoresUse) Text() string {
	steal := ""
	if u.Steal != nil {
		steal = fmt.Sprintf(" (steal %.1f%%)", *u.Steal)
	}
	return fmt.Sprintf("its CPUs %v over the measured span: busy %.1f%%, others %.1f%%%s of a core", u.CPUs, u.Busy, u.Interference, steal)
}
