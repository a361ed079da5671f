package machine

import (
	"context"
	"sync"
	"time"
)

// Interval is how often a Sampler samples.
const Interval = time.Second

// sample is the cumulative counters at one moment.
type sample struct {
	at      time.Time
	cpu     cpuTimes
	perCPU  []cpuTimes        // one per CPU
	vm      map[string]uint64 // /proc/vmstat
	utime   time.Duration     // this process, user
	stime   time.Duration     // this process, system
	cpus    int
	readErr error
}

// A Sampler samples the machine's and this process's cumulative counters
// every Interval while Run runs. Read is safe from any goroutine.
type Sampler struct {
	root procRoot

	mu         sync.Mutex
	prev, last sample
}

// NewSampler returns a Sampler that has taken its first sample.
func NewSampler() *Sampler { return newSampler("/proc") }

func newSampler(root procRoot) *Sampler {
	s := &Sampler{root: root}
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
	b, err := s.root.read("stat")
	if err == nil {
		sm.cpu, sm.perCPU, err = parseStat(b)
		sm.cpus = len(sm.perCPU)
	}
	if err != nil {
		sm.readErr = err
		return sm
	}
	if b, err := s.root.read("vmstat"); err == nil {
		sm.vm = parseKeyValues(b)
	}
	sm.utime, sm.stime = processTimes()
	return sm
}

// CPU is how the machine's CPU time was spent over the window, in percent
// of all CPUs (sar -u): user includes nice, system includes irq and softirq.
type CPU struct {
	User   float64 `json:"user"`
	System float64 `json:"system"`
	IOWait float64 `json:"iowait"`
	Steal  float64 `json:"steal"`
	Idle   float64 `json:"idle"`
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
// load and memory now.
type Reading struct {
	Available     bool       `json:"available"`       // false when /proc cannot be read
	Error         string     `json:"error,omitempty"` // why not
	WindowSeconds float64    `json:"window_seconds"`  // time between the two samples
	CPUs          int        `json:"cpus"`
	CPU           CPU        `json:"cpu"`
	PerCPU        []CPU      `json:"per_cpu"` // each CPU over the window (sar -P ALL)
	Process       ProcessCPU `json:"process_cpu"`
	// OwnCPUs is how busy the CPUs this process may run on were (its
	// affinity; all CPUs when it is not pinned), whoever kept them busy:
	// the core of a server pinned to one, as sar showed the article's
	// application server. Absent where affinity cannot be read.
	OwnCPUs *OwnCPUs `json:"own_cpus,omitempty"`
	Load    Load     `json:"load"`
	Memory  Memory   `json:"memory"`
	Paging  Paging   `json:"paging"`
}

// Read returns the reading over the last two samples, with load and memory
// read now. Before the second sample the window is empty and the rates are 0.
func (s *Sampler) Read() Reading {
	s.mu.Lock()
	prev, last := s.prev, s.last
	s.mu.Unlock()
	if last.readErr != nil {
		return Reading{Error: last.readErr.Error()}
	}
	r := Reading{Available: true, CPUs: last.cpus}
	win := last.at.Sub(prev.at)
	r.WindowSeconds = win.Seconds()
	r.CPU, _ = cpuOver(prev.cpu, last.cpu)
	if len(prev.perCPU) == len(last.perCPU) {
		for i := range last.perCPU {
			c, _ := cpuOver(prev.perCPU[i], last.perCPU[i])
			r.PerCPU = append(r.PerCPU, c)
		}
		if own := ownCPUs(); own != nil {
			r.OwnCPUs = ownBusy(own, prev.perCPU, last.perCPU)
		}
	}
	if win > 0 {
		u := 100 * float64(last.utime-prev.utime) / float64(win)
		sy := 100 * float64(last.stime-prev.stime) / float64(win)
		r.Process = ProcessCPU{User: round(u), System: round(sy), Total: round(u + sy)}
		rate := func(k string) float64 {
			if last.vm == nil || prev.vm == nil {
				return 0
			}
			return round(float64(last.vm[k]-prev.vm[k]) / win.Seconds())
		}
		r.Paging = Paging{
			PageInsPerSecond:  rate("pgpgin"),
			PageOutsPerSecond: rate("pgpgout"),
			SwapInsPerSecond:  rate("pswpin"),
			SwapOutsPerSecond: rate("pswpout"),
		}
	}
	if b, err := s.root.read("loadavg"); err == nil {
		r.Load, _ = parseLoadavg(b)
	}
	if b, err := s.root.read("meminfo"); err == nil {
		r.Memory = memoryOf(parseKeyValues(b))
	}
	return r
}

// OwnCPUs is how busy a process's CPUs were over the window.
type OwnCPUs struct {
	CPUs []int   `json:"cpus"` // the process's affinity
	Busy float64 `json:"busy"` // percent of their time not idle (nor waiting for I/O)
}

// ownBusy adds up the ticks of the CPUs in own between two samples.
func ownBusy(own []int, prev, last []cpuTimes) *OwnCPUs {
	var busy, total uint64
	for _, i := range own {
		if i < 0 || i >= len(last) || last[i].total() < prev[i].total() {
			return nil
		}
		t := last[i].total() - prev[i].total()
		idle := last[i].idle + last[i].iowait - prev[i].idle - prev[i].iowait
		total += t
		busy += t - idle
	}
	if total == 0 {
		return nil
	}
	return &OwnCPUs{CPUs: own, Busy: round(100 * float64(busy) / float64(total))}
}

// cpuOver is how CPU time was spent between two readings of the same
// counters, in percent; false when no tick passed or the counters went
// back.
func cpuOver(prev, last cpuTimes) (CPU, bool) {
	if last.total() <= prev.total() {
		return CPU{}, false
	}
	d := float64(last.total() - prev.total())
	pct := func(a, b uint64) float64 { return round(100 * float64(a-b) / d) }
	return CPU{
		User:   pct(last.user+last.nice, prev.user+prev.nice),
		System: pct(last.system+last.irq+last.softirq, prev.system+prev.irq+prev.softirq),
		IOWait: pct(last.iowait, prev.iowait),
		Steal:  pct(last.steal, prev.steal),
		Idle:   pct(last.idle, prev.idle),
	}, true
}

// round keeps two decimals.
func round(v float64) float64 {
	return float64(int64(v*100+0.5)) / 100
}
