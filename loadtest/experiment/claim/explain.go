package claim

import (
	"bbslab/loadtest/experiment/outcome"
	"bbslab/loadtest/live"
	"fmt"
	"slices"
	"strings"
)

// An Explanation is said under a claim when the claim reads one of When
// (default: "not reproduced") and its check holds: what the readings say
// the limit was instead of the one the claim names, with the check's
// figures and those of Show.
//
//	[[claim.explain]]
//	when  = ["not reproduced", "inconclusive"]
//	text  = "another process took the board's core: the CPU queue, not the pool, is the limit here"
//	left  = { run = "graph 2", at = "peak", reading = "server core busy", minus = ["server CPU"] }
//	op    = ">="
//	right = { value = 10 }
//	show  = [{ run = "graph 2", at = "peak", reading = "worker time", minus = ["connection time", "pool wait"] }]
type Explanation struct {
	When  []live.Outcome `toml:"when"`
	Text  string         `toml:"text"`
	Left  Operand        `toml:"left"`
	Op    string         `toml:"op"`
	Right Operand        `toml:"right"`
	Show  []Operand      `toml:"show"`
}

// explain returns the explanations of a claim decided as outcome whose
// checks hold in res, each with its figures.
func explain(xs []Explanation, outcome live.Outcome, res *outcome.Result) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(x.When, outcome) {
			continue
		}
		kr, _ := evaluateCheck(Check{Left: x.Left, Op: x.Op, Right: x.Right}, res)
		if kr.Outcome != live.Reproduced {
			continue
		}
		figs := []string{strings.TrimSuffix(kr.Text, ": reproduced")}
		for _, o := range x.Show {
			figs = append(figs, measureSide(o, res).text())
		}
		out = append(out, fmt.Sprintf("%s (%s)", x.Text, strings.Join(figs, "; ")))
	}
	return out
}
