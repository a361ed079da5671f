package machine

import (
	"sync"
	"time"
)

// A FakePlatform is a machine for tests on Linux that stands for one
// without /proc: it gives what gopsutil gives on Windows, CPU times
// without I/O wait and steal, memory without the page cache, and this
// process's CPU time, and no paging, load average or affinity. Its
// counters move only when Advance is called. The zero FakePlatform is a
// machine of two idle CPUs; use it through NewSamplerOn.
type FakePlatform struct {
	mu   sync.Mutex
	all  cpuTimes
	proc time.Duration
}

// CPUTicks are CPU time of the whole machine by kind, in clock ticks of
// 10 ms as /proc counts them: a Reading shows each kind's share of their
// sum, Sampler.Counters their seconds.
type CPUTicks struct {
	User, System, Idle uint64
}

// NewSamplerOn returns a Sampler of p that has taken its first sample.
func NewSamplerOn(p *FakePlatform) *Sampler { return newSampler(p) }

// Advance moves the machine's CPU times on by t (split evenly between its
// two CPUs) and this process's user time by process.
func (p *FakePlatform) Advance(t CPUTicks, process time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.all.user += t.User
	p.all.system += t.System
	p.all.idle += t.Idle
	p.proc += process
}

func (p *FakePlatform) cpu() (cpuTimes, []cpuTimes, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	half := cpuTimes{user: p.all.user / 2, system: p.all.system / 2, idle: p.all.idle / 2}
	return p.all, []cpuTimes{half, half}, nil
}

func (p *FakePlatform) cpuKinds() (iowait, steal bool) { return false, false }

func (p *FakePlatform) cpuModes() []string { return []string{"user", "system", "idle"} }

// cpuUnit: a FakePlatform's ticks are /proc's.
func (p *FakePlatform) cpuUnit() time.Duration { return clockTick }

func (p *FakePlatform) paging() (map[string]uint64, error) { return nil, errUnavailable }

func (p *FakePlatform) load() (Load, error) { return Load{}, errUnavailable }

func (p *FakePlatform) memory() (Memory, error) {
	return Memory{TotalBytes: 8 << 30, AvailableBytes: 4 << 30, FreeBytes: 2 << 30}, nil
}

func (p *FakePlatform) process() (user, system time.Duration, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.proc, 0, nil
}

func (p *FakePlatform) affinity() ([]int, error) { return nil, errUnavailable }
