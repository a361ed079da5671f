package child

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// startSet is the CPUs this process could use when it started, before any
// pinning; pins are checked against it.
var startSet unix.CPUSet

func init() { unix.SchedGetaffinity(0, &startSet) }

// pinThread pins the calling OS thread (the caller holds
// runtime.LockOSThread) to cpus and returns a function that restores its
// previous affinity.
func pinThread(cpus []int) (func(), error) {
	pinMu.Lock()
	defer pinMu.Unlock()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("read CPU affinity: %w", err)
	}
	set, err := allowedSet(cpus)
	if err != nil {
		return nil, err
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("set CPU affinity: %w", err)
	}
	return func() { unix.SchedSetaffinity(0, &old) }, nil
}

// pinProcess pins every thread of this process to cpus; threads started
// later inherit the affinity of the thread that starts them.
func pinProcess(cpus []int) error {
	pinMu.Lock()
	defer pinMu.Unlock()
	set, err := allowedSet(cpus)
	if err != nil {
		return err
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil {
			return fmt.Errorf("set CPU affinity of thread %d: %w", tid, err)
		}
	}
	return nil
}

// allowedSet builds the set of cpus, each of which must be in startSet.
func allowedSet(cpus []int) (unix.CPUSet, error) {
	var set unix.CPUSet
	for _, c := range cpus {
		if c < 0 || !startSet.IsSet(c) {
			return set, fmt.Errorf("CPU %d is not available to this process (it may use %d CPUs)", c, startSet.Count())
		}
		set.Set(c)
	}
	return set, nil
}
