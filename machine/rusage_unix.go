//go:build unix

package machine

import (
	"syscall"
	"time"
)

// processTimes returns this process's user and system CPU time so far
// (getrusage), or zeros when it cannot be read.
func processTimes() (user, system time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
