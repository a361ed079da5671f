// Package machine reads what sar, vmstat and netstat showed in the article:
//
//	s := machine.NewSampler()
//	go s.Run(ctx) // samples the cumulative counters every second
//	r := s.Read() // CPU and paging over the last second, load, memory
//
// It reads the CPU use of the whole machine and of this process over the
// last second, load average, memory and paging, and (from Linux's /proc)
// TCP connection states with the accept queue of a listening socket; the
// host's facts (Host); a process's CPU time and peak resident set; and the
// Go runtime's own metrics (ReadRuntime), in one place for the board's
// statistics and the load generator's cost.
//
// A Reading is the difference between the Sampler's last two samples, so it
// is a live reading over the last second, not an average since start.
// Memory and load are read when asked. The CPUs this process may run on
// (its affinity) are read apart: how busy they were, and how much of their
// time something other than this process took (the interference: busy time
// minus the process's CPU time; the hypervisor's steal where the OS counts
// it), over the window and as cumulative counters that Sampler.Counters and
// ReadCounters read now, so that a span's figure is exact. Linux is read
// from /proc; macOS and Windows through gopsutil. A reading an OS cannot
// give (paging and I/O wait off Linux, the load average on Windows) is
// absent from the Reading and its JSON, and named in Reading.Absent: never
// 0.
package machine

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// procRoot is where /proc is mounted; tests point it at testdata. It is
// the Linux platform.
type procRoot string

func (r procRoot) cpu() (cpuTimes, []cpuTimes, error) {
	b, err := r.read("stat")
	if err != nil {
		return cpuTimes{}, nil, err
	}
	return parseStat(b)
}

func (r procRoot) cpuKinds() (iowait, steal bool) { return true, true }

func (r procRoot) cpuModes() []string { return allModes }

func (r procRoot) cpuUnit() time.Duration { return clockTick }

func (r procRoot) paging() (map[string]uint64, error) {
	b, err := r.read("vmstat")
	if err != nil {
		return nil, err
	}
	return parseKeyValues(b, pagingKeys), nil
}

func (r procRoot) load() (Load, error) {
	b, err := r.read("loadavg")
	if err != nil {
		return Load{}, err
	}
	return parseLoadavg(b)
}

func (r procRoot) memory() (Memory, error) {
	b, err := r.read("meminfo")
	if err != nil {
		return Memory{}, err
	}
	return memoryOf(parseKeyValues(b, memoryKeys)), nil
}

func (r procRoot) process() (user, system time.Duration, err error) { return processTimes() }

func (r procRoot) affinity() ([]int, error) { return ownCPUs() }

func (r procRoot) read(name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(string(r), name))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// clockTick is the unit of the CPU times in /proc/stat and /proc/PID/stat:
// USER_HZ, which Linux fixes at 100 on every architecture it exports to
// user space (proc(5): "measured in clock ticks (divide by
// sysconf(_SC_CLK_TCK))").
const clockTick = 10 * time.Millisecond

// cpuTimes are the first line of /proc/stat, in clock ticks.
type cpuTimes struct {
	user, nice, system, idle, iowait, irq, softirq, steal uint64
}

func (c cpuTimes) total() uint64 {
	return c.user + c.nice + c.system + c.idle + c.iowait + c.irq + c.softirq + c.steal
}

// parseStat reads the "cpu" line of /proc/stat and the "cpuN" lines, one
// per CPU in the order the kernel lists them.
func parseStat(b []byte) (cpuTimes, []cpuTimes, error) {
	var c cpuTimes
	var per []cpuTimes
	found := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if len(f) < 9 {
			return c, nil, fmt.Errorf("/proc/stat: short cpu line %q", sc.Text())
		}
		var v [8]uint64
		for i := range v {
			n, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return c, nil, fmt.Errorf("/proc/stat: %s field %d: %w", f[0], i+1, err)
			}
			v[i] = n
		}
		t := cpuTimes{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]}
		if f[0] != "cpu" {
			per = append(per, t)
			continue
		}
		c = t
		found = true
	}
	if !found {
		return c, nil, fmt.Errorf("/proc/stat: no cpu line")
	}
	return c, per, nil
}

// The keys of /proc/vmstat and /proc/meminfo that a Reading shows.
var (
	pagingKeys = []string{"pgpgin", "pgpgout", "pswpin", "pswpout"}
	memoryKeys = []string{"MemTotal:", "MemAvailable:", "MemFree:", "Cached:", "SwapTotal:", "SwapFree:"}
)

// parseKeyValues reads the "key value" lines (/proc/vmstat) or "Key: value
// kB" lines (/proc/meminfo) whose key is one of keys (written as in the
// file) into a map; values in kB become bytes. The other lines, most of
// each file, are skipped before they are split: splitting every line of
// /proc/vmstat took most of a sample's time (docs/measurements.md).
func parseKeyValues(b []byte, keys []string) map[string]uint64 {
	m := make(map[string]uint64, len(keys))
	for line := range bytes.Lines(b) {
		k, _, ok := bytes.Cut(line, []byte(" "))
		if !ok || !slices.Contains(keys, string(k)) {
			continue
		}
		f := strings.Fields(string(line))
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			continue
		}
		if len(f) == 3 && f[2] == "kB" {
			v *= 1024
		}
		m[strings.TrimSuffix(f[0], ":")] = v
	}
	return m
}

// Load is the load average (/proc/loadavg): run-queue averages, and on
// Linux the scheduling entities.
type Load struct {
	One     float64 `json:"one"`
	Five    float64 `json:"five"`
	Fifteen float64 `json:"fifteen"`
	// Runnable counts the threads runnable or running now, Threads the
	// threads on the machine; absent off Linux.
	Runnable *int `json:"runnable,omitempty"`
	Threads  *int `json:"threads,omitempty"`
}

func parseLoadavg(b []byte) (Load, error) {
	f := strings.Fields(string(b))
	if len(f) < 4 {
		return Load{}, fmt.Errorf("/proc/loadavg: %q", b)
	}
	var l Load
	var err error
	for i, p := range []*float64{&l.One, &l.Five, &l.Fifteen} {
		if *p, err = strconv.ParseFloat(f[i], 64); err != nil {
			return Load{}, fmt.Errorf("/proc/loadavg: %w", err)
		}
	}
	run, all, ok := strings.Cut(f[3], "/")
	if !ok {
		return Load{}, fmt.Errorf("/proc/loadavg: %q", f[3])
	}
	if n, err := strconv.Atoi(run); err == nil {
		l.Runnable = &n
	}
	if n, err := strconv.Atoi(all); err == nil {
		l.Threads = &n
	}
	return l, nil
}

// Memory is the part of /proc/meminfo that says whether memory is short.
// CachedBytes (the page cache) is absent off Linux; the swap figures are
// absent where the OS does not say (Windows gives its page file).
type Memory struct {
	TotalBytes     uint64  `json:"total_bytes"`
	AvailableBytes uint64  `json:"available_bytes"`
	FreeBytes      uint64  `json:"free_bytes"`
	CachedBytes    *uint64 `json:"cached_bytes,omitempty"`
	SwapTotalBytes *uint64 `json:"swap_total_bytes,omitempty"`
	SwapFreeBytes  *uint64 `json:"swap_free_bytes,omitempty"`
}

func memoryOf(m map[string]uint64) Memory {
	field := func(k string) *uint64 {
		if v, ok := m[k]; ok {
			return &v
		}
		return nil
	}
	return Memory{
		TotalBytes:     m["MemTotal"],
		AvailableBytes: m["MemAvailable"],
		FreeBytes:      m["MemFree"],
		CachedBytes:    field("Cached"),
		SwapTotalBytes: field("SwapTotal"),
		SwapFreeBytes:  field("SwapFree"),
	}
}
