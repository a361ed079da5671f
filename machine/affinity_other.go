//go:build !linux

package machine

// ownCPUs returns nil: affinity is read on Linux only.
func ownCPUs() []int { return nil }
