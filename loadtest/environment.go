package loadtest

import (
	"encoding/json"
	"sync"

	"bbslab/machine"
)

// generatorHost reads the generator's machine once per process: the
// facts do not change between the runs of a sweep.
var generatorHost = sync.OnceValue(machine.Host)

// Environment is what a result ran on, so that results from different
// machines are not compared blind.
type Environment struct {
	// Generator is the load generator's machine, Go runtime and build.
	Generator *machine.HostInfo `json:"generator,omitempty"`
	// Generators lists every generator's when results were merged, in the
	// order of Result.Generators.
	Generators []machine.HostInfo `json:"generators,omitempty"`
	// Server holds the objects of the target's stats JSON the watcher was
	// told to copy (watch.Options.EnvironmentKeys), as they were at its
	// first successful read, by key.
	Server map[string]json.RawMessage `json:"server,omitempty"`
}

// newEnvironment is the environment of a run on this machine.
func newEnvironment() *Environment {
	h := generatorHost()
	return &Environment{Generator: &h}
}
