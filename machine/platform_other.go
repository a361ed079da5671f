//go:build !linux

package machine

// defaultPlatform is gopsutil off Linux (macOS, Windows).
func defaultPlatform() platform { return gopsutilPlatform{} }
