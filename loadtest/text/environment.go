package text

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"bbslab/loadtest"
)

// EnvironmentDifferences names how results' environments differ from the first
// one's, as "name: first vs other"; results without one are skipped.
func EnvironmentDifferences(results []*loadtest.Result) []string {
	var ref *loadtest.Environment
	var out []string
	add := func(d string) {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, r := range results {
		e := r.Environment
		if e == nil {
			continue
		}
		if ref == nil {
			ref = e
			continue
		}
		if ref.Generator != nil && e.Generator != nil {
			for _, d := range ref.Generator.Differences(*e.Generator) {
				add("generator " + d)
			}
		}
		if ref.Server != nil && e.Server != nil {
			for _, d := range ServerDifferences(ref, e) {
				add("server " + d)
			}
		}
	}
	return out
}

// WriteEnvironmentWarning writes one line naming how the results' environments differ, if they do.
func WriteEnvironmentWarning(w io.Writer, results []*loadtest.Result) {
	d := EnvironmentDifferences(results)
	if len(d) == 0 {
		return
	}
	fmt.Fprintf(w, "WARNING: these results ran in different environments: %s\n", strings.Join(d, "; "))
}

// maxDifferences bounds how many differing server facts one line names.
const maxDifferences = 8

// ServerDifferences names the server facts that differ between a and b, leaf by
// leaf ("config.workers: 4 vs 8"), at most maxDifferences, then how many more.
func ServerDifferences(a, b *loadtest.Environment) []string {
	fa, fb := FlatLeaves(a.Server), FlatLeaves(b.Server)
	all := maps.Clone(fa)
	maps.Copy(all, fb)
	keys := slices.Sorted(maps.Keys(all))
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

// flattenValue puts each leaf of v into m under its dotted path.
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

// FlatLeaves returns each leaf of the opaque JSON objects m under its dotted
// path ("config.workers") as text; a value that is not JSON is one leaf.
func FlatLeaves(m map[string]json.RawMessage) map[string]string {
	f := map[string]string{}
	for k, raw := range m {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			f[k] = string(raw)
			continue
		}
		flattenValue(f, k, v)
	}
	return f
}
