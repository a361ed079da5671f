package experiment

import (
	"fmt"

	"bbslab/internal/child"
)

// How an experiment holds the server and the load generator to the CPUs
// its file names for them ([server] cpus, [client] cpus): package child
// pins them where it can (Options.NoPin turns that off) and caps their
// GOMAXPROCS where it cannot. The notes below say which, for the report.

// serverNote says how the server was held to its CPUs.
func serverNote(h child.Hold) string {
	switch {
	case len(h.CPUs) == 0:
		return "server not pinned"
	case h.Pinned:
		return fmt.Sprintf("server pinned to CPU %s", child.CPUList(h.CPUs))
	case h.FromEnv:
		return fmt.Sprintf("server not pinned (%v): GOMAXPROCS=%s from the file's [server] env; the OS chooses its cores", h.NotPinned, h.GOMAXPROCS)
	}
	return fmt.Sprintf("server not pinned (%v): GOMAXPROCS=%s in its environment (the number of [server] cpus); the OS chooses its cores", h.NotPinned, h.GOMAXPROCS)
}

// holdGenerator holds this process, the load generator, to cpus: it pins
// every thread to them when pin is set and the system allows it, and
// otherwise caps runtime.GOMAXPROCS at their number until restore is
// called. It returns a note about what was done and the CPUs the
// generator runs on (every CPU when it is not pinned).
func holdGenerator(cpus []int, pin bool) (note string, cores []int, restore func()) {
	h, restore := child.HoldSelf(cpus, pin)
	switch {
	case len(cpus) == 0:
		return "load generator not pinned", allCPUs(), restore
	case h.Pinned:
		return fmt.Sprintf("load generator pinned to CPU %s", child.CPUList(cpus)), cpus, restore
	}
	return fmt.Sprintf("load generator not pinned (%v): GOMAXPROCS=%s while the experiment runs (the number of [client] cpus); the OS chooses its cores and may share them with the server", h.NotPinned, h.GOMAXPROCS), allCPUs(), restore
}
