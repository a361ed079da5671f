package text

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"bbslab/loadtest"
)

// EnvironmentDifferences names how the environments of results differ
// from the first one's: the generator's machine, Go and build, and every
// fact of the server's objects (database, host, config) that differs, as
// "name: first vs other". Results without an environment (JTL files, older
// results) are skipped. It is empty when all ran alike.
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
			for _, d := range ref.ServerDifferences(e) {
				add("server " + d)
			}
		}
	}
	return out
}

// WriteEnvironmentWarning writes one line naming how the results'
// environments differ, and nothing when they ran alike.
func WriteEnvironmentWarning(w io.Writer, results []*loadtest.Result) {
	d := EnvironmentDifferences(results)
	if len(d) == 0 {
		return
	}
	fmt.Fprintf(w, "WARNING: these results ran in different environments: %s\n", strings.Join(d, "; "))
}
