package experiment

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"bbslab/loadtest/claim"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

func (e *Experiment) checkClaims() []error {
	var errs []error
	ids := map[string]bool{}
	for i := range e.Claims {
		c := &e.Claims[i]
		name := fmt.Sprintf("claim %d", i+1)
		if c.ID != "" {
			name = fmt.Sprintf("claim %q", c.ID)
		}
		bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(name+": "+format, a...)) }
		switch {
		case c.ID == "":
			bad("id: missing")
		case ids[c.ID]:
			bad("id used twice")
		}
		ids[c.ID] = true
		if strings.TrimSpace(c.Text) == "" {
			bad("text: missing: what the claim says")
		}
		if strings.TrimSpace(c.Source) == "" {
			bad("source: missing: where the claim was made (article, figure, page)")
		}
		if len(c.Checks) == 0 {
			bad("check: missing: at least one [[claim.check]]")
		}
		for j := range c.Checks {
			k := &c.Checks[j]
			if !slices.Contains(claim.Ops, k.Op) {
				bad("check %d: op = %q: want one of %s", j+1, k.Op, strings.Join(claim.Ops, ", "))
			}
			for _, msg := range e.checkSides(&k.Left, &k.Right) {
				bad("check %d: %s", j+1, msg)
			}
		}
		for _, msg := range append(e.checkControl(c), e.checkExplanations(c)...) {
			bad("%s", msg)
		}
	}
	return errs
}

func (e *Experiment) checkSides(left, right *claim.Operand) []string {
	var out []string
	for _, msg := range e.checkOperand(left) {
		out = append(out, "left: "+msg)
	}
	for _, msg := range e.checkOperand(right) {
		out = append(out, "right: "+msg)
	}
	return out
}

func (e *Experiment) checkOperand(o *claim.Operand) []string {
	var out []string
	if o.Factor < 0 {
		out = append(out, fmt.Sprintf("factor = %g: want a positive factor", o.Factor))
	}
	o.Factor = cmp.Or(o.Factor, 1)
	if o.Value != nil {
		if o.Run != "" || o.Clients != 0 || o.At != "" || o.Metric != "" || o.Label != "" || o.Reading != "" || o.Profile != "" || o.Bucket != "" || o.Truth != "" || o.Tune != "" {
			out = append(out, "value is a constant: give no run, clients, at, metric, label, reading, profile, bucket, truth or tune with it")
		}
		return out
	}
	if o.Tune != "" {
		return append(out, e.checkTuneOperand(o)...)
	}
	if o.Run == "" {
		return append(out, "run: missing: a run name, or value = N for a constant")
	}
	run := e.run(o.Run)
	if run == nil {
		out = append(out, fmt.Sprintf("run %q is not a run of this file", o.Run))
	}
	switch {
	case o.Clients != 0 && o.At != "":
		out = append(out, "give clients or at, not both")
	case o.Clients != 0 && run != nil && run.Clients != 0 && o.Clients != run.Clients:
		out = append(out, fmt.Sprintf("clients = %d: run %q is measured at %d clients only (its clients)", o.Clients, o.Run, run.Clients))
	case o.Clients != 0 && (run == nil || run.Clients == 0) && !slices.Contains(e.Load.Clients, o.Clients):
		out = append(out, fmt.Sprintf("clients = %d is not one of load.clients %v", o.Clients, e.Load.Clients))
	case o.Clients == 0 && o.At == "":
		out = append(out, `clients: missing: a client count, or at = "peak", "first" or "last"`)
	case o.At != "" && o.At != "peak" && o.At != "first" && o.At != "last":
		out = append(out, fmt.Sprintf(`at = %q: want "peak", "first" or "last"`, o.At))
	}
	kinds := []string{o.Metric, o.Reading, o.Profile, o.Truth}
	if len(slices.DeleteFunc(kinds, func(s string) bool { return s == "" })) != 1 {
		out = append(out, "give exactly one of metric, reading, profile or truth")
	}
	if o.Truth != "" {
		if !slices.Contains(truthFigureNames, o.Truth) {
			out = append(out, fmt.Sprintf("truth = %q: want one of %s", o.Truth, strings.Join(truthFigureNames, ", ")))
		}
		if e.Truth.Start == "" {
			out = append(out, "truth figures need a [truth] section (where the server's truth is started and stopped)")
		}
	}
	if o.Metric != "" && !slices.Contains(outcome.MetricNames, o.Metric) {
		out = append(out, fmt.Sprintf("metric = %q: want one of %s", o.Metric, strings.Join(outcome.MetricNames, ", ")))
	}
	if o.Label != "" {
		if o.Metric == "" {
			out = append(out, "label goes with metric")
		}
		if run != nil {
			labels := e.runLabels(*run)
			if !slices.Contains(labels, o.Label) {
				out = append(out, fmt.Sprintf("label %q is not a request label of run %q (its labels: %s)", o.Label, o.Run, strings.Join(labels, ", ")))
			}
		}
	}
	if o.Reading != "" && o.Reading != e.Calibrate.Share && !e.hasReading(o.Reading) {
		out = append(out, fmt.Sprintf("reading %q is not a [[stats.reading]] of this file (nor calibrate.share)", o.Reading))
	}
	for _, m := range o.Minus {
		if o.Reading == "" {
			out = append(out, "minus goes with reading")
			break
		}
		if !e.hasReading(m) {
			out = append(out, fmt.Sprintf("minus: reading %q is not a [[stats.reading]] of this file", m))
		}
	}
	if o.Bucket != "" && o.Profile == "" {
		out = append(out, "bucket goes with profile")
	}
	if o.Profile != "" {
		if !slices.Contains(e.Profile.Kinds, o.Profile) {
			out = append(out, fmt.Sprintf("profile = %q is not one of profile.kinds %v", o.Profile, e.Profile.Kinds))
		}
		if o.Bucket == "" {
			out = append(out, "bucket: missing: the profile bucket whose share to take")
		} else if o.Bucket != "elsewhere" && !slices.ContainsFunc(e.Profile.Buckets, func(b watch.Bucket) bool { return b.Name == o.Bucket }) {
			out = append(out, fmt.Sprintf("bucket %q is not a [[profile.bucket]] of this file (nor \"elsewhere\")", o.Bucket))
		}
		if at := e.profileAt(); o.Clients != at {
			out = append(out, fmt.Sprintf("profiles are taken at %d clients only (profile.at): give clients = %d", at, at))
		}
	}
	return out
}

func (e *Experiment) runLabels(r runSpec) []string {
	var out []string
	for _, q := range e.Load.Requests {
		if q.Label != "" {
			out = append(out, expand(q.Label, r.Vars))
		}
	}
	return out
}

// profileAt is the client count whose steps are profiled.
func (e *Experiment) profileAt() int {
	if e.Profile.At != 0 || len(e.Load.Clients) == 0 {
		return e.Profile.At
	}
	return e.Load.Clients[len(e.Load.Clients)-1]
}

func (e *Experiment) checkControl(c *claim.Claim) []string {
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
		for _, o := range []claim.Operand{k.Left, k.Right} {
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
		for _, msg := range e.checkSides(&k.Left, &k.Right) {
			out = append(out, fmt.Sprintf("control's check %d: %s", j+1, msg))
		}
	}
	return out
}

func (e *Experiment) checkExplanations(c *claim.Claim) []string {
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
		if !slices.Contains(claim.Ops, x.Op) {
			bad("op = %q: want one of %s", x.Op, strings.Join(claim.Ops, ", "))
		}
		for _, msg := range e.checkSides(&x.Left, &x.Right) {
			bad("%s", msg)
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
