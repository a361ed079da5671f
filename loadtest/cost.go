package loadtest

import (
	"fmt"
	"runtime"
	"time"

	"bbslab/machine"
)

// Cost is what the generator itself used during a run: a load client that
// runs out of CPU or stops for GC measures itself, not the server.
type Cost struct {
	// CPUPercent is in % of one core; the CPU figures are nil where the OS gives none.
	WallSeconds float64  `json:"wall_seconds"`
	CPUSeconds  *float64 `json:"cpu_seconds,omitempty"`
	UserSeconds *float64 `json:"user_seconds,omitempty"`
	SysSeconds  *float64 `json:"sys_seconds,omitempty"`
	CPUPercent  *float64 `json:"cpu_percent,omitempty"`
	// PeakRSSBytes is the process's lifetime peak resident set (nil where
	// the OS does not give it); PeakGoBytes the Go runtime's, sampled.
	PeakRSSBytes *int64  `json:"peak_rss_bytes,omitempty"`
	PeakGoBytes  uint64  `json:"peak_go_bytes"`
	GCCycles     uint64  `json:"gc_cycles"`
	GCPauseMaxMs float64 `json:"gc_pause_max_ms"`
	Goroutines   int     `json:"goroutines"` // the peak
	// ScheduleLagMaxMs is the largest actual − intended send time.
	ScheduleLagMaxMs float64 `json:"schedule_lag_max_ms"`
	// LateRequests were already due when their client got to them.
	LateRequests int64 `json:"late_requests"`
	// The timer lag is how late clients woke up from their think time.
	TimerLagMeanMs float64   `json:"timer_lag_mean_ms"`
	TimerLagP99Ms  float64   `json:"timer_lag_p99_ms"`
	TimerLagMaxMs  float64   `json:"timer_lag_max_ms"`
	Cores          *CoresUse `json:"cores,omitempty"`
	// Bottleneck says the generator may have limited the run, Reasons why.
	Bottleneck bool     `json:"bottleneck"`
	Reasons    []string `json:"reasons,omitempty"`
}

// timerSlack is timer lateness that is normal on an idle machine.
const timerSlack = time.Millisecond

type costMeter struct {
	t0      time.Time
	use0    machine.ProcessUsage
	err0    error // from reading use0
	r0, cur machine.Runtime
	peakGo  uint64
	peakGor int
	cores0  *machine.Counters // at the span's start
	cores   *CoresUse
}

func startCost() *costMeter {
	m := &costMeter{t0: time.Now()}
	m.use0, m.err0 = machine.ReadProcessUsage()
	m.r0 = machine.ReadRuntime()
	m.sample()
	return m
}

func (m *costMeter) sample() {
	m.cur = machine.ReadRuntime()
	m.peakGo = max(m.peakGo, m.cur.MemoryTotalBytes-m.cur.MemoryReleasedBytes)
	m.peakGor = max(m.peakGor, runtime.NumGoroutine())
}

func (m *costMeter) spanStart() {
	if c, err := machine.ReadCounters(); err == nil && c.Own != nil {
		m.cores0 = &c
	}
}

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

func coresUse(prev, last machine.OwnCounters, wall time.Duration) *CoresUse {
	sp, ok := last.Since(prev)
	if !ok || wall <= 0 {
		return nil
	}
	pct := func(sec float64) float64 { return Round3(100 * sec / wall.Seconds()) }
	u := &CoresUse{CPUs: sp.CPUs, Busy: pct(sp.BusySeconds), Interference: pct(sp.InterferenceSeconds),
		Pinned: !last.AffinityUnknown && len(sp.CPUs) < last.MachineCPUs}
	if sp.StealSeconds != nil {
		u.Steal = ptr(pct(*sp.StealSeconds))
	}
	return u
}

// finish computes the cost; think is the mean think time.
func (m *costMeter) finish(lag lagAcc, think time.Duration) Cost {
	m.sample()
	use, err := machine.ReadProcessUsage()
	wall := time.Since(m.t0).Seconds()
	timerP99 := lag.timer.Quantile(0.99)
	c := Cost{
		WallSeconds:      Round3(wall),
		PeakGoBytes:      m.peakGo,
		Goroutines:       m.peakGor,
		ScheduleLagMaxMs: ms(lag.max),
		LateRequests:     lag.late,
		TimerLagMaxMs:    ms(lag.timerMax),
		TimerLagP99Ms:    ms(timerP99),
		TimerLagMeanMs:   ms(lag.timer.Mean()),
		Cores:            m.cores,
	}
	if err == nil && m.err0 == nil {
		user := (use.User - m.use0.User).Seconds()
		sys := (use.System - m.use0.System).Seconds()
		c.UserSeconds, c.SysSeconds, c.CPUSeconds = ptr(Round3(user)), ptr(Round3(sys)), ptr(Round3(user+sys))
		if wall > 0 {
			c.CPUPercent = ptr(Round3(100 * (user + sys) / wall))
		}
		c.PeakRSSBytes = use.PeakRSSBytes
	}
	c.GCCycles = m.cur.GCCycles - m.r0.GCCycles
	c.GCPauseMaxMs = machine.HistogramMaxNew(m.r0.GCPauses, m.cur.GCPauses) * 1000
	if cpu, ok := c.CPU(); ok && cpu > 80 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("the generator used %.0f%% of a core (over 80%%)", cpu))
	}
	if think > 0 && timerP99 > think/10 && timerP99 > timerSlack {
		c.Reasons = append(c.Reasons, fmt.Sprintf("clients woke up late: p99 timer lag %.3g ms exceeds 10%% of the %v think time", c.TimerLagP99Ms, think))
	}
	c.Bottleneck = len(c.Reasons) > 0
	return c
}

// CPU returns CPUPercent; false where the OS gave no process times.
func (c Cost) CPU() (float64, bool) {
	if c.CPUPercent == nil {
		return 0, false
	}
	return *c.CPUPercent, true
}

// CPUText is CPUPercent printed with the fmt verb format, or "–".
func (c Cost) CPUText(format string) string {
	if v, ok := c.CPU(); ok {
		return fmt.Sprintf(format, v)
	}
	return "–"
}

// Round3 rounds v to three decimals, as the engine rounds its seconds.
func Round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

func ptr[T any](v T) *T { return &v }

// CoresUse is how a process's CPUs were used over a span, in % of one core: Busy by
// anyone, Interference not by the process, Steal by the hypervisor (nil if uncounted).
// Off Linux the CPUs are all the machine's, so Interference includes a local server.
type CoresUse struct {
	CPUs         []int    `json:"cpus"`
	Busy         float64  `json:"busy_percent"`
	Interference float64  `json:"interference_percent"`
	Steal        *float64 `json:"steal_percent,omitempty"`
	// Pinned says its CPUs are fewer than the machine's.
	Pinned bool `json:"pinned,omitempty"`
}

// Text is the use in a sentence, "its CPUs [1] over the measured span: busy 52.0%, ...".
func (u CoresUse) Text() string {
	steal := ""
	if u.Steal != nil {
		steal = fmt.Sprintf(" (steal %.1f%%)", *u.Steal)
	}
	return fmt.Sprintf("its CPUs %v over the measured span: busy %.1f%%, others %.1f%%%s of a core", u.CPUs, u.Busy, u.Interference, steal)
}
