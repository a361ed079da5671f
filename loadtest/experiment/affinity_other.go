//go:build !linux

package experiment

func pinThread(cpus []int) (func(), error) { return nil, errNoAffinity }

func pinProcess(cpus []int) error { return errNoAffinity }
