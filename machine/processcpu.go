package machine

import "time"

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
