package experiment

import (
	"fmt"
	"slices"
	"strings"

	"bbslab/loadtest/experiment/outcome"
	"bbslab/loadtest/live"
)

// An ExplanationX is said under a claim when the claim reads one of When
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
type ExplanationX struct {
	When  []live.Outcome `toml:"when"`
	Text  string         `toml:"text"`
	Left  OperandX       `toml:"left"`
	Op    string         `toml:"op"`
	Right OperandX       `toml:"right"`
	Show  []OperandX     `toml:"show"`
}

// checkExplanations returns what is wrong with a claim's explanations.
func (e *Experiment) checkExplanations(c *CSpecX) []string {
	var out []string
	for i := range c.Explain {
		x := &c.Explain[i]
		bad := func(format string, a ...any) {
			out = append(out, fmt.Sprintf("explain %d: ", i+1)+fmt.Sprintf(format, a...))
		}
		if len(x.When) == 0 {
			x.When = []live.Outcome{live.NotReproduced}
		}
		for _, w := range x.When {
			if !slices.Contains(live.Outcomes, w) {
				bad("when: %q: want one of %q", w, live.Outcomes)
			}
		}
		if strings.TrimSpace(x.Text) == "" {
			bad("text: missing: what the readings say")
		}
		if !slices.Contains(checkOps, x.Op) {
			bad("op = %q: want one of %s", x.Op, strings.Join(checkOps, ", "))
		}
		for _, side := range []struct {
			name string
			o    *OperandX
		}{{"left", &x.Left}, {"right", &x.Right}} {
			for _, msg := range e.checkOperand(side.o) {
				bad("%s: %s", side.name, msg)
			}
		}
		for j := range x.Show {
			if x.Show[j].Value != nil {
				bad("show %d: a constant shows nothing", j+1)
			}
			for _, msg := range e.checkOperand(&x.Show[j]) {
				bad("show %d: %s", j+1, msg)
			}
		}
	}
	return out
}

// explain returns the explanations of a claim decided as outcome whose
// checks hold in res, each with its figures.
func explain(xs []ExplanationX, outcome live.Outcome, res *outcome.Result) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(x.When, outcome) {
			continue
		}
		kr, _ := evaluateCheck(CCheckX{Left: x.Left, Op: x.Op, Right: x.Right}, res)
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
