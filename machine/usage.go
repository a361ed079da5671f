package machine

import "time"

// ProcessUsage is this process's CPU time so far and its peak resident
// set, as getrusage gives them on Unix and GetProcessTimes on Windows.
type ProcessUsage struct {
	User, System time.Duration
	// PeakRSSBytes is the peak resident set over the process's lifetime;
	// absent (nil) where the OS does not give it (Windows, here).
	PeakRSSBytes *int64
}

// ReadProcessUsage reads this process's usage; errUnavailable where the OS
// gives none.
func ReadProcessUsage() (ProcessUsage, error) { return processUsage() }

// processTimes returns this process's cumulative user and system CPU time.
func processTimes() (user, system time.Duration, err error) {
	u, err := processUsage()
	return u.User, u.System, err
}
