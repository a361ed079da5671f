package text

import (
	"cmp"
	"fmt"
	"io"

	"bbslab/loadtest"
)

// WriteObjectiveResults writes one PASS/FAIL line per objective (and its warning) and
// reports whether all passed.
func WriteObjectiveResults(w io.Writer, vs []loadtest.ObjectiveResult) bool {
	all := true
	for _, v := range vs {
		word := "PASS"
		if !v.Pass {
			word, all = "FAIL", false
		}
		unit := cmp.Or(map[string]string{"errors": "%", "throughput": "/s"}[v.Objective.Metric], " ms")
		fmt.Fprintf(w, "SLO %s %s: measured %.4g%s\n", word, v.Objective.Text, v.Value, unit)
		if v.Warning != "" {
			fmt.Fprintf(w, "SLO WARNING %s: %s\n", v.Objective.Text, v.Warning)
		}
	}
	return all
}
