package experiment

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// How an experiment holds the server and the load generator to the CPUs
// its file names for them ([server] cpus, [client] cpus). On Linux it pins
// them (sched_setaffinity, affinity_linux.go): the server's Go runtime then
// sees only its CPUs and sets GOMAXPROCS to their number itself. Where
// pinning is off (Options.NoPin) or fails (macOS, Windows, a container
// that refuses it), the server gets GOMAXPROCS = its CPUs' number in its
// environment and the generator caps its own runtime.GOMAXPROCS likewise,
// so that each runs Go code on at most its share of cores; which cores is
// the OS's choice, and the notes say so.

var (
	errNoAffinity = errors.New("CPU affinity is not available on this system")
	errPinOff     = errors.New("pinning is off")
)

// pinMu serialises pinning.
var pinMu sync.Mutex

// serverCap caps the server cmd, not pinned because of why, with
// GOMAXPROCS = the number of cpus in its environment, unless the file's
// env already sets GOMAXPROCS, and returns the note that says so.
func serverCap(cmd *exec.Cmd, fileEnv []string, cpus []int, why error) string {
	if v, ok := envValue(fileEnv, "GOMAXPROCS"); ok {
		return fmt.Sprintf("server not pinned (%v): GOMAXPROCS=%s from the file's [server] env; the OS chooses its cores", why, v)
	}
	n := cpuCount(cpus)
	// Appended last, it wins over a GOMAXPROCS this process inherited.
	cmd.Env = append(cmd.Env, fmt.Sprintf("GOMAXPROCS=%d", n))
	return fmt.Sprintf("server not pinned (%v): GOMAXPROCS=%d in its environment (the number of [server] cpus); the OS chooses its cores", why, n)
}

// holdGenerator holds this process, the load generator, to cpus: it pins
// every thread to them when pin is set and the system allows it, and
// otherwise caps runtime.GOMAXPROCS at their number until restore is
// called. It returns a note about what was done.
func holdGenerator(cpus []int, pin bool) (note string, restore func()) {
	restore = func() {}
	if len(cpus) == 0 {
		return "load generator not pinned", restore
	}
	why := errPinOff
	if pin {
		if why = pinProcess(cpus); why == nil {
			return fmt.Sprintf("load generator pinned to CPU %s", cpuList(cpus)), restore
		}
	}
	n := cpuCount(cpus)
	old := runtime.GOMAXPROCS(n)
	restore = func() { runtime.GOMAXPROCS(old) }
	return fmt.Sprintf("load generator not pinned (%v): GOMAXPROCS=%d while the experiment runs (the number of [client] cpus); the OS chooses its cores and may share them with the server", why, n), restore
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

func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, ",")
}
