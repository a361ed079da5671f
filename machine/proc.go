// Package machine reads what sar, vmstat and netstat showed in the article,
// from Linux's /proc: CPU use of the whole machine and of this process over
// the last second, load average, memory and paging, and TCP connection
// states with the accept queue of a listening socket.
//
// A Sampler takes a sample of the cumulative counters every second; a
// Reading is the difference between its last two samples, so it is a live
// reading over the last second, not an average since start. Memory, load
// and sockets are read when asked. Off Linux (no /proc) the readings say
// they are not available.
//
// ReadRuntime reads the Go runtime's own metrics (runtime/metrics), in one
// place for the board's statistics and the load generator's cost.
package machine

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procRoot is where /proc is mounted; tests point it at testdata.
type procRoot string

func (r procRoot) read(name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(string(r), name))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

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

// parseKeyValues reads "key value" lines (/proc/vmstat) or "Key: value kB"
// lines (/proc/meminfo) into a map; values in kB become bytes.
func parseKeyValues(b []byte) map[string]uint64 {
	m := make(map[string]uint64)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
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

// Load is /proc/loadavg: run-queue averages and scheduling entities.
type Load struct {
	One      float64 `json:"one"`
	Five     float64 `json:"five"`
	Fifteen  float64 `json:"fifteen"`
	Runnable int     `json:"runnable"` // threads runnable or running now
	Threads  int     `json:"threads"`  // threads on the machine
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
	l.Runnable, _ = strconv.Atoi(run)
	l.Threads, _ = strconv.Atoi(all)
	return l, nil
}

// Memory is the part of /proc/meminfo that says whether memory is short.
type Memory struct {
	TotalBytes     uint64 `json:"total_bytes"`
	AvailableBytes uint64 `json:"available_bytes"`
	FreeBytes      uint64 `json:"free_bytes"`
	CachedBytes    uint64 `json:"cached_bytes"`
	SwapTotalBytes uint64 `json:"swap_total_bytes"`
	SwapFreeBytes  uint64 `json:"swap_free_bytes"`
}

func memoryOf(m map[string]uint64) Memory {
	return Memory{
		TotalBytes:     m["MemTotal"],
		AvailableBytes: m["MemAvailable"],
		FreeBytes:      m["MemFree"],
		CachedBytes:    m["Cached"],
		SwapTotalBytes: m["SwapTotal"],
		SwapFreeBytes:  m["SwapFree"],
	}
}
