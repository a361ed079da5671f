package machine

import (
	"cmp"
	"context"
	"errors"
	"sync"
	"time"
)

// Interval is how often a Sampler samples.
const Interval = time.Second

// sample is the cumulative counters at one moment; each part's error is
// why it is missing (errUnavailable where the OS has none).
type sample struct {
	at      time.Time
	cpu     cpuTimes
	perCPU  []cpuTimes // one per CPU
	cpuErr  error
	vm      map[string]uint64 // paging, by /proc/vmstat's names
	vmErr   error
	utime   time.Duration // this process, user
	stime   time.Duration // this process, system
	procErr error
}

// A Sampler samples the machine's and this process's cumulative counters
// every Interval while Run runs. Read is safe from any goroutine.
type Sampler struct {
	p platform

	mu         sync.Mutex
	prev, last sample
	// interferenceHigh is the highest OwnCounters.InterferenceSeconds
	// Counters has returned (it holds a dip there); interferenceBase is
	// added to the raw sum over interferenceCPUs, the CPUs last read, so
	// that a change of affinity does not make the counter jump.
	interferenceHigh, interferenceBase float64
	interferenceCPUs                   []int
}

// NewSampler returns a Sampler of this machine that has taken its first
// sample: from /proc on Linux, through gopsutil elsewhere.
func NewSampler() *Sampler { return newSampler(defaultPlatform()) }

func newSampler(p platform) *Sampler {
	s := &Sampler{p: p}
	s.last = s.take()
	s.prev = s.last
	return s
}

// Run samples every Interval until ctx ends.
func (s *Sampler) Run(ctx context.Context) {
	t := time.NewTicker(Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Sample()
		}
	}
}

// Sample takes a sample now; the next Read covers the time since the one
// before. Run calls it every Interval.
func (s *Sampler) Sample() {
	next := s.take()
	s.mu.Lock()
	s.prev, s.last = s.last, next
	s.mu.Unlock()
}

// take reads the cumulative counters.
func (s *Sampler) take() sample {
	sm := sample{at: time.Now()}
	sm.cpu, sm.perCPU, sm.cpuErr = s.p.cpu()
	sm.vm, sm.vmErr = s.p.paging()
	sm.utime, sm.stime, sm.procErr = s.p.process()
	return sm
}

// CPU is how the machine's CPU time was spent over the window, in percent
// of all CPUs (sar -u): user includes nice, system includes irq and softirq.
// IOWait and Steal are absent where the OS does not count them (macOS,
// Windows): there their time is in Idle and the others.
type CPU struct {
	User   float64  `json:"user"`
	System float64  `json:"system"`
	IOWait *float64 `json:"iowait,omitempty"`
	Steal  *float64 `json:"steal,omitempty"`
	Idle   float64  `json:"idle"`
}

// ProcessCPU is this process's CPU use over the window in percent of ONE
// CPU, as top shows it: 200 means two CPUs fully busy.
type ProcessCPU struct {
	User   float64 `json:"user"`
	System float64 `json:"system"`
	Total  float64 `json:"total"`
}

// Paging is /proc/vmstat's paging counters over the window, per second
// (vmstat's bi/bo and si/so in pages; sar -B).
type Paging struct {
	PageInsPerSecond  float64 `json:"pgpgin_per_second"`
	PageOutsPerSecond float64 `json:"pgpgout_per_second"`
	SwapInsPerSecond  float64 `json:"pswpin_per_second"`
	SwapOutsPerSecond float64 `json:"pswpout_per_second"`
}

// Reading is the machine's state: CPU and paging over the last window,
// load and memory now. A part the OS cannot give, or whose read failed, is
// nil and left out of the JSON, never 0: Absent names the parts this OS
// does not have, Error the reads that failed.
type Reading struct {
	// Available is true when any part was read.
	Available bool `json:"available"`
	// Error says why parts are missing other than the OS: a read that
	// failed, or no sampler at all.
	Error string `json:"error,omitempty"`
	// Absent names, by their JSON paths under "machine", the readings
	// this OS does not give (e.g. "paging", "cpu.iowait", "load").
	Absent        []string `json:"absent,omitempty"`
	WindowSeconds float64  `json:"window_seconds"` // time between the two samples
	CPUs          int      `json:"cpus,omitempty"`
	CPU           *CPU     `json:"cpu,omitempty"`
	PerCPU        []CPU    `json:"per_cpu,omitempty"` // each CPU over the window (sar -P ALL)
	// Process is this process's CPU; absent where the OS gives no process
	// times.
	Process *ProcessCPU `json:"process_cpu,omitempty"`
	// OwnCPUs is how busy the CPUs this process may run on were (its
	// affinity; all CPUs when it is not pinned), whoever kept them busy:
	// the core of a server pinned to one, as sar showed the article's
	// application server. Absent where affinity cannot be read (off
	// Linux).
	OwnCPUs *OwnCPUs `json:"own_cpus,omitempty"`
	Load    *Load    `json:"load,omitempty"`
	Memory  *Memory  `json:"memory,omitempty"`
	Paging  *Paging  `json:"paging,omitempty"`
}

// missing records why the part at path is missing: absent on this OS, or
// a failed read.
func (r *Reading) missing(path string, err error) {
	if errors.Is(err, errUnavailable) {
		r.Absent = append(r.Absent, path)
		return
	}
	if r.Error != "" {
		r.Error += "; "
	}
	r.Error += path + ": " + err.Error()
}

// Read returns the reading over the last two samples, with load and memory
// read now. Before the second sample there is no window: the CPU, process
// and paging readings are absent (an idle of 0 would read as a machine
// 100 % busy).
func (s *Sampler) Read() Reading {
	s.mu.Lock()
	prev, last := s.prev, s.last
	s.mu.Unlock()
	var r Reading
	win := last.at.Sub(prev.at)
	r.WindowSeconds = win.Seconds()
	if err := cmp.Or(last.cpuErr, prev.cpuErr); err != nil {
		r.missing("cpu", err)
	} else if win > 0 {
		iowait, steal := s.p.cpuKinds()
		r.CPUs = len(last.perCPU)
		c, _ := cpuOver(prev.cpu, last.cpu, iowait, steal)
		r.CPU = &c
		if len(prev.perCPU) == len(last.perCPU) {
			for i := range last.perCPU {
				c, _ := cpuOver(prev.perCPU[i], last.perCPU[i], iowait, steal)
				r.PerCPU = append(r.PerCPU, c)
			}
		}
		if !iowait {
			r.Absent = append(r.Absent, "cpu.iowait")
		}
		if !steal {
			r.Absent = append(r.Absent, "cpu.steal")
		}
	}
	if last.cpuErr == nil {
		r.OwnCPUs = s.ownCPUs(&r, prev, last)
	}
	if err := cmp.Or(last.procErr, prev.procErr); err != nil {
		r.missing("process_cpu", err)
	} else if win > 0 {
		u := 100 * float64(last.utime-prev.utime) / float64(win)
		sy := 100 * float64(last.stime-prev.stime) / float64(win)
		r.Process = &ProcessCPU{User: round(u), System: round(sy), Total: round(u + sy)}
	}
	if err := cmp.Or(last.vmErr, prev.vmErr); err != nil {
		r.missing("paging", err)
	} else if win > 0 {
		rate := func(k string) float64 { return round(float64(last.vm[k]-prev.vm[k]) / win.Seconds()) }
		r.Paging = &Paging{
			PageInsPerSecond:  rate("pgpgin"),
			PageOutsPerSecond: rate("pgpgout"),
			SwapInsPerSecond:  rate("pswpin"),
			SwapOutsPerSecond: rate("pswpout"),
		}
	}
	s.readNow(&r)
	r.Available = r.CPU != nil || r.Process != nil || r.Paging != nil || r.Load != nil || r.Memory != nil
	return r
}

// readNow reads the load and memory into r now.
func (s *Sampler) readNow(r *Reading) {
	if l, err := s.p.load(); err != nil {
		r.missing("load", err)
	} else {
		r.Load = &l
		if l.Runnable == nil {
			r.Absent = append(r.Absent, "load.runnable", "load.threads")
		}
	}
	if m, err := s.p.memory(); err != nil {
		r.missing("memory", err)
	} else {
		r.Memory = &m
		if m.CachedBytes == nil {
			r.Absent = append(r.Absent, "memory.cached_bytes")
		}
		if m.SwapTotalBytes == nil {
			r.Absent = append(r.Absent, "memory.swap_total_bytes", "memory.swap_free_bytes")
		}
	}
}

// OwnCPUs is how a process's CPUs were used over the window, with the
// cumulative counters of the time others took from them read now.
type OwnCPUs struct {
	// CPUs are the process's affinity; with AffinityUnknown (off Linux,
	// where the affinity is not read and the lab does not pin) all the
	// machine's CPUs.
	CPUs            []int `json:"cpus"`
	AffinityUnknown bool  `json:"affinity_unknown,omitempty"`
	// Busy is the percent of their time not idle (nor waiting for I/O)
	// over the window, whoever kept them busy; absent before the second
	// sample.
	Busy *float64 `json:"busy,omitempty"`
	// Interference is the part of their time this process did not use
	// (their busy time minus its CPU time: other processes, kernel work
	// not charged to it, the hypervisor's steal), and Steal the
	// hypervisor's part, both in percent of ONE CPU as ProcessCPU is (200:
	// two CPUs' whole time), over the window. A window whose busy time
	// came out below the process's (the rounding of the tick counters)
	// reads 0.
	Interference *float64 `json:"interference,omitempty"`
	Steal        *float64 `json:"steal,omitempty"`
	// InterferenceSecondsTotal and StealSecondsTotal are the cumulative
	// counters (OwnCounters), read at the moment of the Reading: their
	// increase over a span, times 100 over its length, is that span's
	// Interference and Steal exactly, whatever the sampler's windows.
	//
	// The interference is absent where the OS gives no process times,
	// the steal where it does not count steal (macOS, Windows).
	InterferenceSecondsTotal *float64 `json:"interference_seconds_total,omitempty"`
	StealSecondsTotal        *float64 `json:"steal_seconds_total,omitempty"`
}

// ownCPUs reads the CPUs this process may run on: their counters now, and
// their use over the window between prev and last when there is one; nil
// when neither could be read. It names what this OS lacks in r.Absent.
func (s *Sampler) ownCPUs(r *Reading, prev, last sample) *OwnCPUs {
	own, unknown, err := ownOrAll(s.p, len(last.perCPU))
	if err != nil {
		r.missing("own_cpus", err)
		return nil
	}
	o := &OwnCPUs{CPUs: own, AffinityUnknown: unknown}
	if c, err := s.Counters(); err == nil && c.Own != nil {
		o.InterferenceSecondsTotal, o.StealSecondsTotal = c.Own.InterferenceSeconds, c.Own.StealSeconds
	}
	_, steal := s.p.cpuKinds()
	if prev.cpuErr == nil && last.at.After(prev.at) && len(prev.perCPU) == len(last.perCPU) {
		ownOver(o, prev, last, s.p.cpuUnit(), steal)
	}
	if o.Busy == nil && o.InterferenceSecondsTotal == nil && o.StealSecondsTotal == nil {
		return nil
	}
	if cmp.Or(last.procErr, prev.procErr) != nil {
		r.Absent = append(r.Absent, "own_cpus.interference", "own_cpus.interference_seconds_total")
	}
	if !steal {
		r.Absent = append(r.Absent, "own_cpus.steal", "own_cpus.steal_seconds_total")
	}
	return o
}

// ownOver sets o's figures over the window between two samples: it adds
// up the ticks of o's CPUs (of unit; steal says whether they count
// steal), and takes the process's CPU time between the samples. It leaves
// them nil when a CPU is not in the samples, a counter went back or no
// tick passed.
func ownOver(o *OwnCPUs, prev, last sample, unit time.Duration, steal bool) {
	var busy, total, stolen uint64
	for _, i := range o.CPUs {
		if i < 0 || i >= len(last.perCPU) || i >= len(prev.perCPU) || last.perCPU[i].total() < prev.perCPU[i].total() {
			return
		}
		p, l := prev.perCPU[i], last.perCPU[i]
		t := l.total() - p.total()
		idle := l.idle + l.iowait - p.idle - p.iowait
		total += t
		busy += t - idle
		stolen += l.steal - p.steal
	}
	if total == 0 {
		return
	}
	b := round(100 * float64(busy) / float64(total))
	o.Busy = &b
	// The window of one CPU: their ticks averaged over them.
	window := float64(time.Duration(total)*unit) / float64(len(o.CPUs))
	if prev.procErr == nil && last.procErr == nil {
		proc := float64(last.utime + last.stime - prev.utime - prev.stime)
		v := round(max(0, 100*(float64(time.Duration(busy)*unit)-proc)/window))
		o.Interference = &v
	}
	if steal {
		v := round(100 * float64(time.Duration(stolen)*unit) / window)
		o.Steal = &v
	}
}

// cpuOver is how CPU time was spent between two readings of the same
// counters, in percent, with I/O wait and steal when the counters hold
// them; false when no tick passed or the counters went back.
func cpuOver(prev, last cpuTimes, iowait, steal bool) (CPU, bool) {
	c := CPU{}
	if iowait {
		c.IOWait = new(float64)
	}
	if steal {
		c.Steal = new(float64)
	}
	if last.total() <= prev.total() {
		return c, false
	}
	d := float64(last.total() - prev.total())
	pct := func(a, b uint64) float64 { return round(100 * float64(a-b) / d) }
	c.User = pct(last.user+last.nice, prev.user+prev.nice)
	c.System = pct(last.system+last.irq+last.softirq, prev.system+prev.irq+prev.softirq)
	c.Idle = pct(last.idle, prev.idle)
	if iowait {
		*c.IOWait = pct(last.iowait, prev.iowait)
	}
	if steal {
		*c.Steal = pct(last.steal, prev.steal)
	}
	return c, true
}

// round keeps two decimals.
func round(v float64) float64 {
	return float64(int64(v*100+0.5)) / 100
}
