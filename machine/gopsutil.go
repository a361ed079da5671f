package machine

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/load"
	"github.com/shirou/gopsutil/v4/mem"
)

// gopsutilPlatform reads the machine through gopsutil, where /proc is
// missing. gopsutil gives CPU times in seconds; they are kept in
// microseconds, so that the Sampler's sums stay in integers as /proc's
// clock ticks do. Process CPU is the same getrusage or GetProcessTimes as
// on Linux: gopsutil's Process.CPUPercent is a lifetime average, not the
// last second.
type gopsutilPlatform struct{}

// gopsutilTimeout bounds one gopsutil call: none should take a second.
const gopsutilTimeout = time.Second

func (gopsutilPlatform) cpu() (cpuTimes, []cpuTimes, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gopsutilTimeout)
	defer cancel()
	all, err := cpu.TimesWithContext(ctx, false)
	if err != nil {
		return cpuTimes{}, nil, fmt.Errorf("cpu times: %w", err)
	}
	if len(all) != 1 {
		return cpuTimes{}, nil, fmt.Errorf("cpu times: %d totals; want 1", len(all))
	}
	per, err := cpu.TimesWithContext(ctx, true)
	if err != nil {
		return cpuTimes{}, nil, fmt.Errorf("cpu times per CPU: %w", err)
	}
	out := make([]cpuTimes, len(per))
	for i, t := range per {
		out[i] = fromGopsutil(t)
	}
	return fromGopsutil(all[0]), out, nil
}

// fromGopsutil converts one CPU's times from seconds to microseconds. On
// Windows gopsutil's system time is kernel time less idle, which already
// holds interrupt time: its Irq is dropped so as not to count it twice.
func fromGopsutil(t cpu.TimesStat) cpuTimes {
	us := func(s float64) uint64 {
		if s <= 0 {
			return 0
		}
		return uint64(s * 1e6)
	}
	c := cpuTimes{user: us(t.User), nice: us(t.Nice), system: us(t.System), idle: us(t.Idle),
		iowait: us(t.Iowait), irq: us(t.Irq), softirq: us(t.Softirq), steal: us(t.Steal)}
	if runtime.GOOS == "windows" {
		c.irq = 0
	}
	return c
}

// cpuKinds: only Linux's times hold I/O wait and steal.
func (gopsutilPlatform) cpuKinds() (iowait, steal bool) {
	return runtime.GOOS == "linux", runtime.GOOS == "linux"
}

// cpuModes: Linux gives every mode; macOS user, nice, system and idle;
// Windows user, system and idle (its interrupt time is in system, above).
func (gopsutilPlatform) cpuModes() []string {
	switch runtime.GOOS {
	case "linux":
		return allModes
	case "windows":
		return []string{"user", "system", "idle"}
	}
	return []string{"user", "nice", "system", "idle"}
}

// cpuUnit: fromGopsutil keeps microseconds.
func (gopsutilPlatform) cpuUnit() time.Duration { return time.Microsecond }

// paging: gopsutil has /proc/vmstat's counters on Linux alone, where
// procRoot reads them.
func (gopsutilPlatform) paging() (map[string]uint64, error) { return nil, errUnavailable }

// load: Windows has no load average; gopsutil's stand-in there is an
// estimate built by a goroutine of its own from the processor queue, not
// the run-queue average sar shows.
func (gopsutilPlatform) load() (Load, error) {
	if runtime.GOOS == "windows" {
		return Load{}, errUnavailable
	}
	ctx, cancel := context.WithTimeout(context.Background(), gopsutilTimeout)
	defer cancel()
	a, err := load.AvgWithContext(ctx)
	if err != nil {
		return Load{}, fmt.Errorf("load average: %w", err)
	}
	return Load{One: a.Load1, Five: a.Load5, Fifteen: a.Load15}, nil
}

func (gopsutilPlatform) memory() (Memory, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gopsutilTimeout)
	defer cancel()
	v, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return Memory{}, fmt.Errorf("memory: %w", err)
	}
	m := Memory{TotalBytes: v.Total, AvailableBytes: v.Available, FreeBytes: v.Free}
	if runtime.GOOS == "linux" {
		m.CachedBytes = &v.Cached
	}
	if sw, err := mem.SwapMemoryWithContext(ctx); err == nil {
		m.SwapTotalBytes, m.SwapFreeBytes = &sw.Total, &sw.Free
	}
	return m, nil
}

func (gopsutilPlatform) process() (user, system time.Duration, err error) { return processTimes() }

func (gopsutilPlatform) affinity() ([]int, error) { return ownCPUs() }
