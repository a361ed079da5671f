//go:build !linux

package loadtest

func pinThread(cpus []int) (func(), error) { return nil, errNoAffinity }

func pinProcess(cpus []int) error { return errNoAffinity }
