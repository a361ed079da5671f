package report

import (
	"bbslab/loadtest/experiment/outcome"
	"bbslab/loadtest/text"
	"bbslab/machine"
	"fmt"
	"sort"
	"strings"
)

// experimentEnvironment describes on what an experiment ran, one line
// each: the generator's machine, the server facts every run shares, and
// each run's own (its knobs, usually). The server's objects are shown as
// their dotted leaves, whatever their names.
func experimentEnvironment(res *outcome.Result) []string {
	var gen *machine.HostInfo
	var names []string
	var flat []map[string]string
	for _, run := range res.Runs {
		for _, p := range run.Points {
			if p.Result == nil || p.Result.Environment == nil {
				continue
			}
			e := p.Result.Environment
			if gen == nil {
				gen = e.Generator
			}
			if e.Server != nil {
				f := text.FlatLeaves(e.Server)
				names, flat = append(names, run.Name), append(flat, f)
			}
			break // one point per run: a run is one server process
		}
	}
	var out []string
	if gen != nil {
		out = append(out, "Generator: "+gen.String())
	}
	if len(flat) == 0 {
		return out
	}
	common := map[string]string{}
	for k, v := range flat[0] {
		same := true
		for _, f := range flat[1:] {
			if f[k] != v {
				same = false
				break
			}
		}
		if same {
			common[k] = v
		}
	}
	if len(common) > 0 {
		label := "Server (every run)"
		if len(flat) == 1 {
			label = "Server"
		}
		out = append(out, label+": "+leavesText(common))
	}
	for i, f := range flat {
		own := map[string]string{}
		for k, v := range f {
			if _, ok := common[k]; !ok {
				own[k] = v
			}
		}
		if len(own) > 0 {
			out = append(out, fmt.Sprintf("Server of run %s: %s", names[i], leavesText(own)))
		}
	}
	return out
}

// leavesText lists flattened leaves as "path=value" in path order.
func leavesText(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ", ")
}
