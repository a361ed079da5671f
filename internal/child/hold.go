package child

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// How a process is held to CPUs. On Linux it is pinned to them
// (sched_setaffinity, affinity_linux.go): a Go program's runtime then sees
// only its CPUs and sets GOMAXPROCS to their number itself. Where pinning
// is off or fails (macOS, Windows, a container that refuses it), a child
// gets GOMAXPROCS = its CPUs' number in its environment and this process
// caps its own runtime.GOMAXPROCS likewise, so that each runs Go code on
// at most its share of cores; which cores is the OS's choice.

var (
	// ErrNoAffinity is why nothing is pinned where the OS offers no CPU
	// affinity.
	ErrNoAffinity = errors.New("CPU affinity is not available on this system")
	// ErrPinOff is why nothing is pinned when pinning was not asked for.
	ErrPinOff = errors.New("pinning is off")
)

// A Hold says how a process is held to its CPUs.
type Hold struct {
	// CPUs are the CPUs it was to be held to; none leaves it to the OS.
	CPUs []int
	// Pinned is set when the process is pinned to CPUs.
	Pinned bool
	// NotPinned says why not, when there are CPUs but no pin.
	NotPinned error
	// GOMAXPROCS is its GOMAXPROCS when it is not pinned: the number of
	// CPUs, or, for a child, Spec.Env's own value (then FromEnv is set).
	GOMAXPROCS string
	FromEnv    bool
}

// pinMu serialises pinning.
var pinMu sync.Mutex

// capChild caps cmd, not pinned because of why, with GOMAXPROCS = the
// number of CPUs in its environment, unless env already sets GOMAXPROCS.
func (h *Hold) capChild(cmd *exec.Cmd, env []string, why error) {
	h.NotPinned = why
	if v, ok := envValue(env, "GOMAXPROCS"); ok {
		h.GOMAXPROCS, h.FromEnv = v, true
		return
	}
	h.GOMAXPROCS = strconv.Itoa(cpuCount(h.CPUs))
	// Appended last, it wins over a GOMAXPROCS this process inherited.
	cmd.Env = append(cmd.Env, "GOMAXPROCS="+h.GOMAXPROCS)
}

// HoldSelf holds this process to cpus: it pins every thread to them when
// pin is set and the system allows it (threads started later inherit the
// pin), and otherwise caps runtime.GOMAXPROCS at their number until
// restore is called.
func HoldSelf(cpus []int, pin bool) (h Hold, restore func()) {
	h = Hold{CPUs: cpus}
	restore = func() {}
	if len(cpus) == 0 {
		return h, restore
	}
	why := ErrPinOff
	if pin {
		if why = pinProcess(cpus); why == nil {
			h.Pinned = true
			return h, restore
		}
	}
	n := cpuCount(cpus)
	old := runtime.GOMAXPROCS(n)
	h.NotPinned, h.GOMAXPROCS = why, strconv.Itoa(n)
	return h, func() { runtime.GOMAXPROCS(old) }
}

// PinThread pins the calling goroutine's OS thread to cpus and returns a
// function that restores the thread's previous affinity. The caller holds
// runtime.LockOSThread for as long as the pin should last (a thread
// released with the pin on would run other goroutines on those CPUs). It
// fails where the system has no CPU affinity or a CPU is not available.
func PinThread(cpus []int) (restore func(), err error) { return pinThread(cpus) }

// CanPin says why cpus cannot be pinned (nil when they can): the system
// has no CPU affinity, or one of them is not available to this process.
func CanPin(cpus ...int) error {
	_, err := allowedSet(cpus)
	return err
}

// CPUList writes cpus as a list ("0,1").
func CPUList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, ",")
}

// envValue returns the value of key in env (KEY=VALUE entries; the last
// one wins, as in os/exec).
func envValue(env []string, key string) (string, bool) {
	for _, kv := range slices.Backward(env) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// cpuCount is the number of distinct CPUs in cpus.
func cpuCount(cpus []int) int {
	s := slices.Clone(cpus)
	slices.Sort(s)
	return len(slices.Compact(s))
}
