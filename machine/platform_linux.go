package machine

// defaultPlatform is /proc on Linux.
func defaultPlatform() platform { return procRoot("/proc") }
