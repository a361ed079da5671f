package machine

import (
	"errors"
	"time"
)

// errUnavailable says that this OS cannot give a reading: the reading is
// left out of the Reading (and its JSON) and named in Reading.Absent,
// never shown as 0.
var errUnavailable = errors.New("not available on this OS")

// A platform reads the machine's counters the way one OS gives them. Each
// method returns errUnavailable for what the OS cannot give, or the error
// of a read that failed. Linux reads /proc (procRoot), which measured
// faster than gopsutil (docs/measurements.md, "Reading the machine");
// macOS and Windows read gopsutil (gopsutilPlatform). Tests hand the
// Sampler a fake one.
type platform interface {
	// cpu returns the machine's cumulative CPU times, all CPUs and each.
	cpu() (all cpuTimes, per []cpuTimes, err error)
	// cpuKinds says whether the CPU times hold I/O wait and steal time.
	cpuKinds() (iowait, steal bool)
	// cpuModes names the modes of allModes the CPU times hold.
	cpuModes() []string
	// cpuUnit is the unit of the CPU times.
	cpuUnit() time.Duration
	// paging returns the cumulative paging counters by /proc/vmstat's
	// names (pgpgin, pgpgout, pswpin, pswpout).
	paging() (map[string]uint64, error)
	// load returns the load average now.
	load() (Load, error)
	// memory returns the memory figures now.
	memory() (Memory, error)
	// process returns this process's cumulative user and system CPU time.
	process() (user, system time.Duration, err error)
	// affinity returns the CPUs this process may run on.
	affinity() ([]int, error)
}
