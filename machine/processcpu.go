package machine

import "time"

// ProcessCPUTime returns the CPU time this process has used so far, user
// and system, and whether the platform gives it. Its increase over a span
// divided by the span's length is the process's CPU use over exactly that
// span, where a Sampler's reading covers its last whole second.
func ProcessCPUTime() (time.Duration, bool) {
	u, s := processTimes()
	if u == 0 && s == 0 {
		return 0, false
	}
	return u + s, true
}
