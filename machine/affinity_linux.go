package machine

import "golang.org/x/sys/unix"

// ownCPUs returns the CPUs this process may run on, or nil when the
// affinity cannot be read.
func ownCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var out []int
	for i := range 1024 {
		if set.IsSet(i) {
			out = append(out, i)
		}
	}
	return out
}
