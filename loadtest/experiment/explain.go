package experiment

import (
	"fmt"
	"slices"
	"strings"

	"bbslab/loadtest/live"
)

// An explanation is said under a claim when the claim reads When (default
// "not reproduced") and its check holds: what the readings say the limit
// was instead of the one the claim names, with the figures.
//
//	[[claim.explain]]
//	text  = "requests waited for the core outside the pool: the CPU queue, not the pool, is the limit here"
//	left  = { run = "graph 2", at = "peak", reading = "worker time", minus = ["connection time", "pool wait"] }
//	op    = ">="
//	right = { run = "graph 2", at = "peak", reading = "connection time", factor = 0.25 }
type explanation struct {
	When  live.Outcome `toml:"when"`
	Text  string       `toml:"text"`
	Left  operand      `toml:"left"`
	Op    string       `toml:"op"`
	Right operand      `toml:"right"`
}

// checkExplanations returns what is wrong with a claim's explanations.
func (e *Experiment) checkExplanations(c *claim) []string {
	var out []string
	for i := range c.Explain {
		x := &c.Explain[i]
		bad := func(format string, a ...any) {
			out = append(out, fmt.Sprintf("explain %d: ", i+1)+fmt.Sprintf(format, a...))
		}
		if x.When == "" {
			x.When = live.NotReproduced
		}
		if !slices.Contains(live.Outcomes, x.When) {
			bad("when = %q: want one of %q", x.When, live.Outcomes)
		}
		if strings.TrimSpace(x.Text) == "" {
			bad("text: missing: what the readings say")
		}
		if !slices.Contains(checkOps, x.Op) {
			bad("op = %q: want one of %s", x.Op, strings.Join(checkOps, ", "))
		}
		for _, side := range []struct {
			name string
			o    *operand
		}{{"left", &x.Left}, {"right", &x.Right}} {
			for _, msg := range e.checkOperand(side.o) {
				bad("%s: %s", side.name, msg)
			}
		}
	}
	return out
}

// explain returns the explanations of a claim decided as outcome whose
// checks hold in res, each with its figures.
func explain(xs []explanation, outcome live.Outcome, res *Result) []string {
	var out []string
	for _, x := range xs {
		if x.When != outcome {
			continue
		}
		if kr := evaluateCheck(check{Left: x.Left, Op: x.Op, Right: x.Right}, res); kr.Outcome == live.Reproduced {
			out = append(out, fmt.Sprintf("%s (%s)", x.Text, strings.TrimSuffix(kr.Text, ": reproduced")))
		}
	}
	return out
}
