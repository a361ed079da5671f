//go:build !linux

package loadtest

func newAlarm() alarm { return newTimerAlarm() }
