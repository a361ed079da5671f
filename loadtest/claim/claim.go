package claim

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"bbslab/loadtest"
	"bbslab/loadtest/live"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// A Claim is a statement an experiment tests, traced to where it was
// made, and decided from the results by its checks:
//
//	[[claim]]
//	id = "g1-flat"
//	source = "the tuning article, graph 1: from 5 to 10 clients throughput rose only ~10 %"
//	text = "graph 1 flattens by 10 clients"
//	[[claim.check]]
//	left  = { run = "graph 1", clients = 10, metric = "throughput" }
//	op    = "<="
//	right = { run = "graph 1", clients = 5, metric = "throughput", factor = 1.2 }
type Claim struct {
	ID     string `toml:"id"`
	Source string `toml:"source"`
	Text   string `toml:"text"`
	// Basis says in a few words where the thresholds come from.
	Basis   string        `toml:"basis"`
	Checks  []Check       `toml:"check"`
	Control *Control      `toml:"control"`
	Explain []Explanation `toml:"explain"`
}

// A Check compares two sides with Op, one of Ops; "not_above"
// ("not_below") is reproduced unless every left value is above (below)
// every right value.
type Check struct {
	Left  Operand `toml:"left"`
	Op    string  `toml:"op"`
	Right Operand `toml:"right"`
}

// An Operand is one side of a check: a constant Value, or a figure
// measured in Run at Clients or At "peak", "first" or "last": a Metric
// (outcome.MetricNames) of a request Label or of all, a server Reading, the
// share of a Profile's Bucket, a Truth figure or a tuning's figure. Factor
// multiplies the side (default 1).
type Operand struct {
	Value   *float64 `toml:"value"`
	Run     string   `toml:"run"`
	Clients int      `toml:"clients"`
	At      string   `toml:"at"`
	Metric  string   `toml:"metric"`
	Label   string   `toml:"label"`
	Reading string   `toml:"reading"`
	Profile string   `toml:"profile"`
	Bucket  string   `toml:"bucket"`
	Truth   string   `toml:"truth"`
	// Tune reads a tuning of Run from this start, e.g. "5/5".
	Tune   string  `toml:"tune"`
	Factor float64 `toml:"factor"`
	// Minus names readings subtracted from Reading, repeat by repeat.
	Minus []string `toml:"minus"`
}

// Ops are the operators a check may compare with.
var Ops = []string{"<", "<=", ">", ">=", "not_above", "not_below"}

// Evaluate decides each claim and its control from res; quick marks them single-measurement.
func Evaluate(claims []Claim, res *outcome.Result, quick bool) []outcome.Claim {
	var out []outcome.Claim
	for _, c := range claims {
		cr := outcome.Claim{Claim: live.Claim{ID: c.ID, Text: c.Text}, Source: c.Source, Quick: quick}
		var own live.Outcome
		own, cr.Reason, cr.Checks = decideChecks(c.Checks, res)
		if ct := c.Control; ct != nil {
			cr.Control = &outcome.Control{Why: ct.Why}
			cr.Control.Outcome, cr.Control.Reason, cr.Control.Checks = decideChecks(ct.Checks(c.Checks), res)
		}
		cr.Outcome, cr.Reason = withControl(own, cr.Reason, cr.Control)
		cr.Explained = explain(c.Explain, cr.Outcome, res)
		out = append(out, cr)
	}
	return out
}

// evaluateCheck compares both sides; for an inconclusive one it says what the machine took.
func evaluateCheck(k Check, res *outcome.Result) (outcome.Check, []string) {
	l, r := measureSide(k.Left, res), measureSide(k.Right, res)
	kr := outcome.Check{Op: k.Op, Left: l.Side, Right: r.Side}
	var paired string
	switch {
	case l.Missing != "" || r.Missing != "":
		kr.Outcome = live.NotMeasured
	case l.run != "" && l.run == r.run && l.clients == r.clients && k.Left.At != k.Right.At:
		kr.Outcome = live.NotMeasured
		kr.Left.Missing = fmt.Sprintf("both sides are %s at %s: no point was measured beyond it", l.run, outcome.ClientsText(l.clients))
	case res.Interleave && pairable(l, r, res.Sweeps):
		a, b := pairUp(l, r)
		kr.Outcome, paired = comparePaired(a, k.Op, b, r.Factor/l.Factor, noiseRule(res).Confidence)
		kr.Paired = true
	default:
		c := noiseRule(res).Confidence
		kr.Outcome = compareRanges(l.interval(c), k.Op, r.interval(c))
	}
	kr.Text = fmt.Sprintf("%s %s %s%s: %s", l.text(), opText(k.Op), r.text(), paired, kr.Outcome)
	var lost []string
	for _, s := range []side{l, r} {
		if kr.Outcome == live.Inconclusive && s.lost != "" {
			lost = append(lost, s.lost)
		}
	}
	return kr, lost
}

// pairable reports whether two sides pair repeat by repeat: more than one pair, at one
// client count unless repeats were sweeps. A pair was measured back to back: drift cancels.
func pairable(l, r side, sweeps bool) bool {
	if l.repeats == nil || r.repeats == nil || !sweeps && l.clients != r.clients {
		return false
	}
	a, _ := pairUp(l, r)
	return len(a) > 1
}

// pairUp returns the two sides' values of the repeats both used, in l's order.
func pairUp(l, r side) (a, b []float64) {
	for i, s := range l.slots {
		if j := slices.Index(r.slots, s); j >= 0 && i < len(l.repeats) && j < len(r.repeats) {
			a, b = append(a, l.repeats[i]), append(b, r.repeats[j])
		}
	}
	return a, b
}

// comparePaired decides "a op b" on the pairs' differences as compareRanges
// decides it on ranges, with the differences' median interval at confidence c
// (measure.Interval) for a range: with 3 pairs their range, so reproduced
// when every pair holds and not when none does; with 6 the 2nd to the 5th.
// "not_above" ("not_below") holds when one pair is not above (below). It
// returns the pairs' ratios before the sides' factors (f is b's over a's).
func comparePaired(a []float64, op string, b []float64, f, c float64) (live.Outcome, string) {
	ratios := make([]string, len(a))
	diffs := make([]float64, len(a))
	for i := range a {
		diffs[i] = a[i] - b[i]
		ratios[i] = "-"
		if b[i] != 0 {
			ratios[i] = fmt.Sprintf("%.3f", a[i]/b[i]*f)
		}
	}
	text := fmt.Sprintf(" (paired by repeat, ratios %s)", strings.Join(ratios, ", "))
	lo, hi := measure.Interval(diffs, c)
	if op == "not_above" || op == "not_below" { // one pair is enough
		lo, hi = slices.Min(diffs), slices.Max(diffs)
	}
	return compareRanges(loadtest.Spread{Min: lo, Max: hi}, op, loadtest.Spread{}), text
}

// compareRanges decides "a op b" for ranges a and b.
func compareRanges(a loadtest.Spread, op string, b loadtest.Spread) live.Outcome {
	decide := func(always, never bool) live.Outcome {
		switch {
		case always:
			return live.Reproduced
		case never:
			return live.NotReproduced
		}
		return live.Inconclusive
	}
	switch op {
	case "<":
		return decide(a.Max < b.Min, a.Min >= b.Max)
	case "<=":
		return decide(a.Max <= b.Min, a.Min > b.Max)
	case ">":
		return decide(a.Min > b.Max, a.Max <= b.Min)
	case ">=":
		return decide(a.Min >= b.Max, a.Max < b.Min)
	case "not_above":
		return decide(a.Min <= b.Max, a.Min > b.Max)
	case "not_below":
		return decide(a.Max >= b.Min, a.Max < b.Min)
	}
	return live.NotMeasured
}

// opText says op in words: "not_above" is "is not above".
func opText(op string) string {
	if strings.HasPrefix(op, "not_") {
		return "is " + strings.Replace(op, "_", " ", 1)
	}
	return op
}

// A side is one side of a check as measured, with what pairs and prints it.
type side struct {
	outcome.Side
	// repeats: values per used repeat, after the factor; slots: which repeat each is.
	run     string
	clients int
	repeats []float64
	slots   []int
	// used and planned count the point's repeats; lost is Point.LostText.
	used, planned int
	lost          string
}

// interval is the side's median interval at confidence c over its repeats
// (measure.Interval), or its range when they are not known.
func (s side) interval(c float64) loadtest.Spread {
	v := s.Value
	if len(s.repeats) > 0 {
		v.Min, v.Max = measure.Interval(s.repeats, c)
	}
	return v
}

// measureSide finds an operand's values in res.
func measureSide(o Operand, res *outcome.Result) side {
	f := cmp.Or(o.Factor, 1)
	if o.Value != nil {
		v := loadtest.Spread{Median: *o.Value, Min: *o.Value, Max: *o.Value, N: 1}
		return side{Side: outcome.Side{What: fmt.Sprintf("%g", *o.Value), Value: v.Scaled(f), Raw: v, Factor: f, Constant: true}}
	}
	if o.Tune != "" {
		return tuneSide(o, res, f)
	}
	s := side{Side: outcome.Side{Factor: f}}
	fig := operandFigure(o)
	s.Format, s.Unit, s.Share = sideFormat(o, res.Stats)
	at := outcome.ClientsText(o.Clients)
	if o.At != "" {
		at = "its " + o.At
	}
	s.What = fmt.Sprintf("%s at %s %s", o.Run, at, fig)
	ri := slices.IndexFunc(res.Runs, func(r *outcome.Run) bool { return r.Name == o.Run })
	if ri < 0 {
		s.Missing = fmt.Sprintf("run %q was not measured", o.Run)
		return s
	}
	run := res.Runs[ri]
	if busy := peakBusy(o, run); busy != "" {
		s.Missing = busy
		return s
	}
	p := operandPoint(o, run)
	if p == nil {
		s.Missing = fmt.Sprintf("%s has no point at %s", o.Run, at)
		if run.Error != "" {
			s.Missing += " (" + run.Error + ")"
		}
		return s
	}
	if o.At != "" {
		at = fmt.Sprintf("its %s (%s)", o.At, outcome.ClientsText(p.Clients))
	}
	s.What = fmt.Sprintf("%s at %s %s", o.Run, at, fig)
	if busy := p.BusyText(o.Run); busy != "" {
		s.Missing = busy
		return s
	}
	if cal := res.Calibration; cal != nil && o.Reading != "" && o.Reading == cal.Share && res.CalibrationMoved != "" {
		s.Missing = res.CalibrationMoved
		return s
	}
	s.used, s.planned = len(p.Used()), max(res.SweepsUsed(), len(p.Slots()))
	s.lost = p.LostText(o.Run, s.planned)
	// raw is over repeats with the figure; vs, for pairing, over all used repeats or none.
	var raw loadtest.Spread
	var ok bool
	vs, vok := p.Values(o.Label, o.Metric, o.Reading)
	slots := p.Slots()
	switch {
	case o.Metric != "":
		raw, ok = p.Spread(o.Label, o.Metric)
	case len(o.Minus) > 0:
		vs, vok = p.ReadingMinus(o.Reading, o.Minus)
		raw, ok = outcome.SpreadOf(vs, vok)
	case o.Reading != "":
		raw, ok = p.ReadingSpread(o.Reading)
	case o.Profile != "":
		raw, ok = profileShare(run, o.Profile, o.Bucket, p.Clients, p.UsedSeqs())
		vs, slots, vok = profileRepeats(run, o.Profile, o.Bucket, p.Clients, p.UsedSeqs())
	case o.Truth != "":
		vs, vok = p.TruthValues(o.Truth)
		raw, ok = outcome.SpreadOf(vs, vok)
	}
	if !ok {
		s.Missing = fmt.Sprintf("%s has no %s at %s", o.Run, fig, at)
		if n := p.TruthNotes(); o.Truth != "" && n != "" {
			s.Missing += " (" + n + ")"
		}
		return s
	}
	s.Raw, s.Value = raw, raw.Scaled(f)
	s.run, s.clients = o.Run, p.Clients
	if vok && len(slots) == len(vs) {
		for _, v := range vs {
			s.repeats = append(s.repeats, v*f)
		}
		s.slots = slots
	}
	return s
}

// operandFigure names the figure an operand reads, e.g. "search throughput".
func operandFigure(o Operand) string {
	switch {
	case o.Label != "":
		return o.Label + " " + o.Metric
	case o.Reading != "":
		return strings.Join(append([]string{o.Reading}, o.Minus...), " less ")
	case o.Profile != "":
		return fmt.Sprintf("%s share of %q", o.Profile, o.Bucket)
	case o.Truth != "":
		return "truth " + o.Truth
	}
	return o.Metric
}

// peakBusy says, for an operand at a run's peak, why the peak is not
// known: a point that could not be measured might have been it.
func peakBusy(o Operand, run *outcome.Run) string {
	if o.At != "peak" {
		return ""
	}
	for _, q := range run.Points {
		if busy := q.BusyText(run.Name); busy != "" {
			return busy + ": its peak is not known"
		}
	}
	return ""
}

// profileRepeats returns a bucket's share per used repeat's profile of kind at clients,
// with the repeats; false unless each profile names a different repeat.
func profileRepeats(r *outcome.Run, kind, bucket string, clients int, used map[int]bool) ([]float64, []int, bool) {
	byRepeat := map[int]float64{}
	for _, pr := range r.Profiles {
		if pr.Kind != kind || pr.Clients != clients || !pr.UsedIn(used) {
			continue
		}
		if _, dup := byRepeat[pr.Repeat]; dup || pr.Repeat == 0 {
			return nil, nil, false
		}
		for _, b := range pr.Buckets {
			if b.Name == bucket {
				byRepeat[pr.Repeat] = b.Share
			}
		}
	}
	if len(byRepeat) == 0 {
		return nil, nil, false
	}
	reps := slices.Sorted(maps.Keys(byRepeat))
	out := make([]float64, len(reps))
	for i, rep := range reps {
		out[i] = byRepeat[rep]
	}
	return out, reps, true
}

// operandPoint returns the point an operand names, or nil.
func operandPoint(o Operand, r *outcome.Run) *outcome.Point {
	if len(r.Points) == 0 {
		return nil
	}
	switch o.At {
	case "peak":
		p, _ := peakPoint(r)
		return p
	case "first":
		return r.Points[0]
	case "last":
		return r.Points[len(r.Points)-1]
	}
	for _, p := range r.Points {
		if p.Clients == o.Clients {
			return p
		}
	}
	return nil
}

// profileShare is a bucket's share over kind's profiles at clients in used measurements.
func profileShare(r *outcome.Run, kind, bucket string, clients int, used map[int]bool) (loadtest.Spread, bool) {
	var ps []*outcome.StepProfile
	for _, pr := range r.Profiles {
		if pr.Kind == kind && (pr.Clients == 0 || pr.Clients == clients) && pr.UsedIn(used) {
			ps = append(ps, pr)
		}
	}
	return outcome.ShareOver(ps, bucket)
}

// sideFormat chooses how a side's figures print: throughput as "812/s",
// latencies in ms, a reading with its unit, a share as a percentage.
func sideFormat(o Operand, readings []watch.Stat) (format, unit string, share bool) {
	switch {
	case o.Profile != "", o.Truth == "stall_tail_missing":
		return "%.0f", " %", true
	case o.Truth == "stall_tail_due", o.Truth == "stall_tail_seen", o.Truth == "served":
		return "%.0f", "", false
	case o.Reading != "":
		for _, r := range readings {
			if r.Name == o.Reading {
				return "auto", outcome.UnitSuffix(r.Unit), false
			}
		}
		return "auto", "", false
	case o.Metric == "throughput", o.Metric == "first_second_throughput":
		return "%.0f", "/s", false
	case o.Metric == "errors":
		return "%.0f", "", false
	}
	return "auto", " ms", false
}

// text prints a side: its figure, median and range, and product with its factor.
func (s side) text() string {
	if s.Constant {
		if s.Factor != 1 {
			return fmt.Sprintf("%g × %s = %g", s.Factor, s.What, s.Value.Median)
		}
		return s.What
	}
	if s.Missing != "" {
		return s.What + " (not measured)"
	}
	raw, val := s.Raw, s.Value
	if s.Share {
		raw, val = raw.Scaled(100), val.Scaled(100)
	}
	t := s.What + " " + outcome.SpreadText(raw, s.Format, s.Unit)
	if s.used < s.planned {
		t += fmt.Sprintf(" [%d of %d repeats: the others disturbed]", s.used, s.planned)
	}
	if s.Factor != 1 {
		t = fmt.Sprintf("%g × %s = %s", s.Factor, t, outcome.SpreadText(val, s.Format, s.Unit))
	}
	return t
}

// tuneSide measures an operand reading a tuning.
func tuneSide(o Operand, res *outcome.Result, f float64) side {
	s := side{Side: outcome.Side{Factor: f, What: fmt.Sprintf("%s tuned from %s: %s", o.Run, o.Tune, o.Metric), Format: "%.3g"}}
	i := slices.IndexFunc(res.Tunes, func(t *outcome.TuneRun) bool { return t.Run == o.Run && t.Start == o.Tune })
	if i < 0 || res.Tunes[i].Result == nil || len(res.Tunes[i].Result.Steps) == 0 {
		s.Missing = fmt.Sprintf("%s was not tuned from %s", o.Run, o.Tune)
		return s
	}
	r := res.Tunes[i].Result
	point := func(v float64) loadtest.Spread { return loadtest.Spread{Median: v, Min: v, Max: v, N: 1} }
	var raw loadtest.Spread
	tr := res.Tunes[i]
	switch o.Metric {
	case "winner_throughput", "start_throughput":
		again := tr.WinnerSide
		raw, s.Format, s.Unit = r.WinnerStep().Throughput, "%.0f", "/s"
		if o.Metric == "start_throughput" {
			raw, again = r.Steps[0].Throughput, tr.StartSide
		}
		if again != nil {
			raw, s.What = again.Throughput, s.What+" (side by side)"
		}
	case "winner_resources":
		raw = point(float64(r.Winner.Workers + r.Winner.Pool))
	case "winner_met":
		raw = point(b2f(r.WinnerMet))
	case "application":
		raw = point(b2f(r.Outcome == "application"))
	case "measurements":
		raw = point(float64(r.Measurements))
	}
	s.Raw, s.Value = raw, raw.Scaled(f)
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
