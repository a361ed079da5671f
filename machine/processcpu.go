package machine

import (
	"os"
	"time"
)

// ProcessCPUTime returns the CPU time this process has used so far, user
// and system, and whether the platform gives it (getrusage on Unix,
// GetProcessTimes on Windows). Its increase over a span divided by the
// span's length is the process's CPU use over exactly that span, where a
// Sampler's reading covers its last whole second.
func ProcessCPUTime() (time.Duration, bool) {
	u, s, err := processTimes()
	if err != nil {
		return 0, false
	}
	return u + s, true
}

// ProcessCPUTimeOf returns the CPU time, user and system, that the running
// process pid has used so far: from /proc/PID/stat on Linux, through
// gopsutil elsewhere.
func ProcessCPUTimeOf(pid int) (time.Duration, error) { return processCPUOf(pid) }

// ExitedUsage returns the usage of a child that has exited: its CPU time,
// and its peak resident set where the OS gives it (getrusage's ru_maxrss
// on Unix; absent on Windows).
func ExitedUsage(ps *os.ProcessState) ProcessUsage {
	return ProcessUsage{User: ps.UserTime(), System: ps.SystemTime(), PeakRSSBytes: peakRSS(ps)}
}

// ReadLoad reads the load average now; an error where the OS has none
// (Windows).
func ReadLoad() (Load, error) { return defaultPlatform().load() }
