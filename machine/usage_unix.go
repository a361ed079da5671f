//go:build unix

package machine

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
)

// processUsage reads getrusage. It gives ru_maxrss in kilobytes on Linux
// and the BSDs but in bytes on macOS (getrusage(2) on each).
func processUsage() (ProcessUsage, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return ProcessUsage{}, fmt.Errorf("getrusage: %w", err)
	}
	rss := int64(ru.Maxrss)
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		rss *= 1024
	}
	return ProcessUsage{User: time.Duration(ru.Utime.Nano()), System: time.Duration(ru.Stime.Nano()), PeakRSSBytes: &rss}, nil
}
