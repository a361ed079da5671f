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
// counts as the generator falling behind. The clients' alarm (a timerfd on
// Linux) woke 1,000 clients at 1/s with a p99 lag of 0.1-0.3 ms on one
// pinned core here; the runtime's timers, used elsewhere, up to about 1 ms.
const timerSlack = time.Millisecond

// costMeter measures a run's cost from start to finish.
type costMeter struct {
	t0      time.Time
	use0    procUsage
	r0, cur machine.Runtime
	peakGo  uint64
	peakGor int
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
	if v := m.cur.MemoryTotalBytes - m.cur.MemoryReleasedBytes; v > m.peakGo {
		m.peakGo = v
	}
	if g := runtime.NumGoroutine(); g > m.peakGor {
		m.peakGor = g
	}
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
// part, absent where the OS does not count it.
type CoresUse struct {
	CPUs         []int    `json:"cpus"`
	Busy         float64  `json:"busy_percent"`
	Interference float64  `json:"interference_percent"`
	Steal        *float64 `json:"steal_percent,omitempty"`
}
