package claim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
)

// A Control is a claim's own checks applied where the effect is absent:
// other runs, client counts or tunings' starts in place of the claim's:
//
//	[claim.control]
//	why  = "graph 3 has the connections graph 2 lacks"
//	runs = { "graph 2" = "graph 3" }
//
// A claim is reproduced only when its checks hold and its control's fail;
// when both hold it "does not discriminate".
type Control struct {
	Why     string            `toml:"why"`
	Runs    map[string]string `toml:"runs"`
	Clients map[string]int    `toml:"clients"`
	Tunes   map[string]string `toml:"tunes"`
}

// Checks returns ks with the control's runs, client counts and starts in place.
func (ct *Control) Checks(ks []Check) []Check {
	out := make([]Check, len(ks))
	for i, k := range ks {
		out[i] = Check{Left: ct.operand(k.Left), Op: k.Op, Right: ct.operand(k.Right)}
	}
	return out
}

func (ct *Control) operand(o Operand) Operand {
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

// decideChecks decides checks: not reproduced when one fails, else not measured
// when a side is missing, else inconclusive when one is within the spread (not
// measured when the machine took repeats), else reproduced.
func decideChecks(ks []Check, res *outcome.Result) (live.Outcome, string, []outcome.Check) {
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

// withControl combines a claim's own outcome with its control's.
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

// OperatingPoint says where the runs sat against the calibration's target; not a
// claim, as the calibration chose it. "" without a calibration.
func OperatingPoint(res *outcome.Result) string {
	c := res.Calibration
	if c == nil || cmp.Or(c.Share, c.Reading) == "" {
		return ""
	}
	reading := cmp.Or(c.Share, c.Reading)
	o := Operand{Run: c.Run, Clients: c.Clients, Reading: reading, Factor: 1}
	s := measureSide(o, res)
	band := fmt.Sprintf("%g ± %g", c.Target, c.Tolerance)
	if s.Missing != "" {
		return fmt.Sprintf("Operating point: the calibration put %s at %s within %s; during the runs it was not measured (%s).", c.Run, outcome.ClientsText(c.Clients), band, s.Missing)
	}
	return fmt.Sprintf("Operating point: the calibration put %s at %s within %s (%s); during the runs it read %s.",
		c.Run, outcome.ClientsText(c.Clients), band, reading, outcome.SpreadText(s.Raw, s.Format, s.Unit))
}

// An Explanation is said under a claim that reads one of When when its check
// holds: what the limit was instead, with its figures and those of Show.
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

// explain returns the explanations for outcome whose checks hold in res, with figures.
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

// A Point is one run's point a check reads.
type Point struct {
	Run     string
	Clients int
}

// Unsettled returns the points read by the inconclusive checks of the
// claims that are inconclusive, own or control: measuring them again may
// settle those claims.
func Unsettled(claims []Claim, res *outcome.Result) []Point {
	var out []Point
	for _, c := range claims {
		if Evaluate([]Claim{c}, res, false)[0].Outcome != live.Inconclusive {
			continue
		}
		checks := c.Checks
		if c.Control != nil {
			checks = append(slices.Clone(checks), c.Control.Checks(c.Checks)...)
		}
		for _, k := range checks {
			if kr, _ := evaluateCheck(k, res); kr.Outcome != live.Inconclusive {
				continue
			}
			for _, o := range []Operand{k.Left, k.Right} {
				if s := measureSide(o, res); s.run != "" && !slices.Contains(out, Point{s.run, s.clients}) {
					out = append(out, Point{s.run, s.clients})
				}
			}
		}
	}
	return out
}
