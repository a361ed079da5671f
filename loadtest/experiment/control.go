package experiment

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"bbslab/loadtest/experiment/outcome"
	"bbslab/loadtest/live"
)

// A CControlX is a claim's own checks applied where the effect the claim
// names is absent: another run of the same experiment in place of the
// claim's (Runs: the claim's run name to the CControlX's), other client
// counts in place of the claim's (Clients: "30" = 10 reads the point at
// 10 clients wherever the claim reads 30), another tuning's start in place
// of the claim's (Tunes: "5/5" = "40/40" reads the tuning from 40/40
// wherever the claim reads the one from 5/5), or several. It is decided
// from the same run's data as the claim:
//
//	[claim.CControlX]
//	why  = "graph 3 has the connections graph 2 lacks"
//	runs = { "graph 2" = "graph 3" }
//
// A claim reads "reproduced" only when its checks hold and its CControlX's
// fail; when both hold the checks cannot tell the effect from its absence
// and the claim reads "does not discriminate".
type CControlX struct {
	Why     string            `toml:"why"`
	Runs    map[string]string `toml:"runs"`
	Clients map[string]int    `toml:"clients"`
	Tunes   map[string]string `toml:"tunes"`
}

// Checks returns the claim's Checks with the control's runs, client
// counts and tunings' starts in place of the claim's. Constants stay as
// they are.
func (ct *CControlX) Checks(ks []CCheckX) []CCheckX {
	out := make([]CCheckX, len(ks))
	for i, k := range ks {
		out[i] = CCheckX{Left: ct.Operand(k.Left), Op: k.Op, Right: ct.Operand(k.Right)}
	}
	return out
}

func (ct *CControlX) Operand(o OperandX) OperandX {
	if o.Value != nil {
		return o
	}
	if r, ok := ct.Runs[o.Run]; ok {
		o.Run = r
	}
	if n, ok := ct.Clients[strconv.Itoa(o.Clients)]; ok && o.Clients != 0 {
		o.Clients = n
	}
	if t, ok := ct.Tunes[o.Tune]; ok && o.Tune != "" {
		o.Tune = t
	}
	return o
}

// checkControl returns what is wrong with a claim's control: a run, a
// client count or a start the claim does not read, a control that
// changes nothing, or a substituted check that is not a check of this
// file.
func (e *Experiment) checkControl(c *CSpecX) []string {
	ct := c.Control
	if ct == nil {
		return nil
	}
	var out []string
	if strings.TrimSpace(ct.Why) == "" {
		out = append(out, "control.why: missing: why the effect is absent there")
	}
	if len(ct.Runs) == 0 && len(ct.Clients) == 0 && len(ct.Tunes) == 0 {
		out = append(out, "control: give runs (the claim's run = the control's), clients (\"N\" = M) or tunes (the claim's start = the control's), or several")
	}
	runs, counts, tunes := map[string]bool{}, map[int]bool{}, map[string]bool{}
	for _, k := range c.Checks {
		for _, o := range []OperandX{k.Left, k.Right} {
			runs[o.Run], counts[o.Clients], tunes[o.Tune] = true, true, true
		}
	}
	for _, from := range slices.Sorted(maps.Keys(ct.Runs)) {
		if !runs[from] {
			out = append(out, fmt.Sprintf("control.runs: %q is not a run the claim's checks read", from))
		}
		if ct.Runs[from] == from {
			out = append(out, fmt.Sprintf("control.runs: %q replaced by itself", from))
		}
	}
	for _, from := range slices.Sorted(maps.Keys(ct.Tunes)) {
		if !tunes[from] || from == "" {
			out = append(out, fmt.Sprintf("control.tunes: %q is not a start the claim's checks read", from))
		}
		if ct.Tunes[from] == from {
			out = append(out, fmt.Sprintf("control.tunes: %q replaced by itself", from))
		}
	}
	for _, from := range slices.Sorted(maps.Keys(ct.Clients)) {
		n, err := strconv.Atoi(from)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("control.clients: key %q: want a client count", from))
		case !counts[n] || n == 0:
			out = append(out, fmt.Sprintf("control.clients: %d is not a client count the claim's checks read", n))
		case ct.Clients[from] == n:
			out = append(out, fmt.Sprintf("control.clients: %d replaced by itself", n))
		}
	}
	for j, k := range ct.Checks(c.Checks) {
		for _, side := range []struct {
			name string
			o    OperandX
		}{{"left", k.Left}, {"right", k.Right}} {
			for _, msg := range e.checkOperand(&side.o) {
				out = append(out, fmt.Sprintf("control's check %d: %s: %s", j+1, side.name, msg))
			}
		}
	}
	return out
}

// decideChecks decides a list of checks: not reproduced when one fails
// for certain (even with another not measured), not measured when a side
// is missing, inconclusive when one is within the spread (not measured
// when that spread is the machine's doing), reproduced otherwise.
// It returns the outcome, the reason for not measured, and the checks.
func decideChecks(ks []CCheckX, res *outcome.Result) (live.Outcome, string, []outcome.Check) {
	var outcomes []live.Outcome
	var missing, lost []string
	var out []outcome.Check
	for _, k := range ks {
		kr, l := evaluateCheck(k, res)
		for _, why := range l {
			if !slices.Contains(lost, why) {
				lost = append(lost, why)
			}
		}
		out = append(out, kr)
		outcomes = append(outcomes, kr.Outcome)
		for _, s := range []outcome.Side{kr.Left, kr.Right} {
			if s.Missing != "" {
				missing = append(missing, s.Missing)
			}
		}
	}
	switch {
	case slices.Contains(outcomes, live.NotReproduced):
		return live.NotReproduced, "", out
	case len(missing) > 0:
		return live.NotMeasured, strings.Join(missing, "; "), out
	case slices.Contains(outcomes, live.Inconclusive):
		if len(lost) > 0 {
			return live.NotMeasured, strings.Join(lost, "; "), out
		}
		return live.Inconclusive, "", out
	}
	return live.Reproduced, "", out
}

// withControl combines a claim's own outcome with its control's: a claim
// whose checks hold is reproduced only when its control's fail.
func withControl(own live.Outcome, reason string, ct *outcome.Control) (live.Outcome, string) {
	if own != live.Reproduced || ct == nil {
		return own, reason
	}
	switch ct.Outcome {
	case live.NotReproduced:
		return live.Reproduced, ""
	case live.Reproduced:
		return live.DoesNotDiscriminate, "its control holds too (" + ct.Why + "): the checks cannot tell the effect from its absence"
	case live.Inconclusive:
		return live.Inconclusive, "its control is within the noise (" + ct.Why + ")"
	}
	return live.NotMeasured, "its control was not measured: " + ct.Reason
}

// controlMarkdown prints a claim's control under it, with its figures.
func controlMarkdown(c outcome.Claim) string {
	if c.Control == nil {
		return "  - no control: nothing shows these checks fail where the effect is absent\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  - control (%s): **%s**", c.Control.Why, c.Control.Outcome)
	if c.Control.Reason != "" {
		fmt.Fprintf(&b, ": %s", c.Control.Reason)
	}
	b.WriteString("\n")
	for _, k := range c.Control.Checks {
		fmt.Fprintf(&b, "    - %s\n", k.Text)
	}
	return b.String()
}

// claimCounts says how many claims had each outcome, e.g. "7 reproduced,
// 1 does not discriminate, 1 not reproduced", in the outcomes' order, in
// lang (say).
func claimCounts(cs []outcome.Claim, lang string) string {
	n := map[live.Outcome]int{}
	for _, c := range cs {
		n[c.Outcome]++
	}
	var parts []string
	for _, o := range live.Outcomes {
		if n[o] > 0 {
			parts = append(parts, say(lang, "{0} {1}", n[o], say(lang, string(o))))
		}
	}
	return strings.Join(parts, say(lang, ", "))
}

// operatingPoint says where the runs themselves sat against the
// calibration's target: the calibration's share read at its run and client
// count over the measured repeats. It is the point the experiment was set
// to, reported as such and not counted as a claim: the calibration chose it,
// so a check of it would check the calibration against itself. "" without a
// calibration.
func operatingPoint(res *outcome.Result) string {
	c := res.Calibration
	if c == nil {
		return ""
	}
	reading := c.Share
	if reading == "" {
		reading = c.Reading
	}
	if reading == "" {
		return ""
	}
	o := OperandX{Run: c.Run, Clients: c.Clients, Reading: reading, Factor: 1}
	s := measureSide(o, res)
	band := fmt.Sprintf("%g ± %g", c.Target, c.Tolerance)
	if s.Missing != "" {
		return fmt.Sprintf("Operating point: the calibration put %s at %s within %s; during the runs it was not measured (%s).", c.Run, outcome.ClientsText(c.Clients), band, s.Missing)
	}
	return fmt.Sprintf("Operating point: the calibration put %s at %s within %s (%s); during the runs it read %s.",
		c.Run, outcome.ClientsText(c.Clients), band, reading, outcome.SpreadText(s.Raw, s.format, s.unit))
}
