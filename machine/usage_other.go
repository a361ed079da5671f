//go:build !unix && !windows

package machine

// processUsage has neither getrusage nor GetProcessTimes to read.
func processUsage() (ProcessUsage, error) { return ProcessUsage{}, errUnavailable }
