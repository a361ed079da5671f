//go:build !unix && !windows

package machine

import "os"

// processUsage has neither getrusage nor GetProcessTimes to read.
func processUsage() (ProcessUsage, error) { return ProcessUsage{}, errUnavailable }

// peakRSS is absent without getrusage.
func peakRSS(*os.ProcessState) *int64 { return nil }
