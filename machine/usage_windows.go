package machine

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// processUsage reads GetProcessTimes. Its peak working set would need
// GetProcessMemoryInfo (psapi), which x/sys/windows does not wrap: it is
// left absent.
func processUsage() (ProcessUsage, error) {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		return ProcessUsage{}, fmt.Errorf("GetProcessTimes: %w", err)
	}
	return ProcessUsage{User: filetime(user), System: filetime(kernel)}, nil
}

// filetime is a FILETIME span (100 ns units) as a Duration.
func filetime(f windows.Filetime) time.Duration {
	return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
}

// peakRSS is absent: the exited child's peak working set is not in its
// ProcessState on Windows.
func peakRSS(*os.ProcessState) *int64 { return nil }
