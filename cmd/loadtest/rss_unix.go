//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSSMB is a finished child's peak resident set in MB: ru_maxrss is in
// kilobytes on Linux and the BSDs, in bytes on macOS (getrusage(2)).
func peakRSSMB(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return float64(ru.Maxrss) / 1024
}
