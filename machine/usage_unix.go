//go:build unix

package machine

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"
)

// processUsage reads getrusage.
func processUsage() (ProcessUsage, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return ProcessUsage{}, fmt.Errorf("getrusage: %w", err)
	}
	return ProcessUsage{User: time.Duration(ru.Utime.Nano()), System: time.Duration(ru.Stime.Nano()), PeakRSSBytes: maxRSS(&ru)}, nil
}

// peakRSS is an exited child's ru_maxrss in bytes.
func peakRSS(ps *os.ProcessState) *int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return nil
	}
	return maxRSS(ru)
}

// maxRSS is ru_maxrss in bytes: getrusage gives it in kilobytes on Linux
// and the BSDs but in bytes on macOS (getrusage(2) on each).
func maxRSS(ru *syscall.Rusage) *int64 {
	rss := int64(ru.Maxrss)
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		rss *= 1024
	}
	return &rss
}
