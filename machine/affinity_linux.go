package machine

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// ownCPUs returns the CPUs this process may run on.
func ownCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var out []int
	for i := range 1024 {
		if set.IsSet(i) {
			out = append(out, i)
		}
	}
	return out, nil
}
