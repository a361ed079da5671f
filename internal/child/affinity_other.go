//go:build !linux

package child

func pinThread(cpus []int) (func(), error) { return nil, ErrNoAffinity }

func pinProcess(cpus []int) error { return ErrNoAffinity }

func allowedSet(cpus []int) (struct{}, error) { return struct{}{}, ErrNoAffinity }
