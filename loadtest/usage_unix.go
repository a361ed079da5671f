//go:build unix

package loadtest

import (
	"runtime"
	"syscall"
	"time"
)

// selfUsage reads the process's CPU time and peak resident set.
// getrusage gives ru_maxrss in kilobytes on Linux and the BSDs but in bytes
// on macOS (getrusage(2) on each).
func selfUsage() procUsage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return procUsage{}
	}
	rss := int64(ru.Maxrss)
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		rss *= 1024
	}
	return procUsage{user: time.Duration(ru.Utime.Nano()), sys: time.Duration(ru.Stime.Nano()), maxRSS: rss, ok: true}
}
