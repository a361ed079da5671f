package loadtest

import (
	"encoding/json"
	"sync"

	"bbslab/machine"
)

var generatorHost = sync.OnceValue(machine.Host)

// Environment is what a result ran on, lest results of different machines be compared blind.
type Environment struct {
	Generator *machine.HostInfo `json:"generator,omitempty"`
	// Server holds the objects of the target's stats JSON, by key.
	Server map[string]json.RawMessage `json:"server,omitempty"`
}
