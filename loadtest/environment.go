package loadtest

import (
	"encoding/json"
	"fmt"
	"sort"
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

// maxDifferences bounds how many differing server facts one line names.
const maxDifferences = 8

// ServerDifferences names the facts of the server's objects (Server)
// that differ between e and o, leaf by leaf, as "path: e's vs o's" (at
// most 8, then how many more): "config.workers: 4 vs 8".
func (e *Environment) ServerDifferences(o *Environment) []string {
	return flatDifferences(e.Server, o.Server)
}

// flatDifferences compares two sets of opaque JSON objects leaf by leaf
// and names the paths whose values differ (at most maxDifferences, then
// how many more).
func flatDifferences(a, b map[string]json.RawMessage) []string {
	fa, fb := map[string]string{}, map[string]string{}
	for k, v := range a {
		flatten(fa, k, v)
	}
	for k, v := range b {
		flatten(fb, k, v)
	}
	keys := make([]string, 0, len(fa)+len(fb))
	for k := range fa {
		keys = append(keys, k)
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	more := 0
	for _, k := range keys {
		x, okx := fa[k]
		y, oky := fb[k]
		if okx && oky && x == y {
			continue
		}
		if len(out) == maxDifferences {
			more++
			continue
		}
		if !okx {
			x = "absent"
		}
		if !oky {
			y = "absent"
		}
		out = append(out, fmt.Sprintf("%s: %s vs %s", k, x, y))
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("%d more", more))
	}
	return out
}

// flatten puts each leaf of the JSON value raw into m under its dotted
// path; a value that is not JSON is kept as one leaf.
func flatten(m map[string]string, path string, raw json.RawMessage) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		m[path] = string(raw)
		return
	}
	flattenValue(m, path, v)
}

func flattenValue(m map[string]string, path string, v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flattenValue(m, path+"."+k, e)
		}
	case string:
		m[path] = x
	default:
		b, _ := json.Marshal(x)
		m[path] = string(b)
	}
}

// FlatLeaves returns each leaf of the opaque JSON objects m under its
// dotted path ("config.workers"), its value as text.
func FlatLeaves(m map[string]json.RawMessage) map[string]string {
	f := map[string]string{}
	for k, v := range m {
		flatten(f, k, v)
	}
	return f
}
