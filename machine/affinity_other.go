//go:build !linux

package machine

// ownCPUs is read on Linux only.
func ownCPUs() ([]int, error) { return nil, errUnavailable }
