package claim

import (
	"slices"
	"strings"
	"testing"

	"bbslab/loadtest"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// measuredPoint is a point measured once per throughput given, with the
// server reading "server CPU" at cpu[i] when given.
func measuredPoint(clients int, thr []float64, mean []float64, cpu []float64) *outcome.Point {
	p := &outcome.Point{Clients: clients}
	for i, t := range thr {
		r := &loadtest.Result{Total: loadtest.Stats{Clients: clients, Throughput: t}, Labels: []loadtest.Stats{{Label: "AllView", Throughput: t}}}
		if mean != nil {
			r.Total.MeanMs = mean[i]
		}
		var server *watch.ServerStats
		if cpu != nil {
			server = &watch.ServerStats{Values: []watch.ServerValue{{Name: "server CPU", Value: cpu[i]}}}
		}
		p.Repeats = append(p.Repeats, outcome.NewRepeat(i+1, r, server))
		p.Refresh()
	}
	return p
}

func num(v float64) *float64 { return &v }

func TestClaimOutcomes(t *testing.T) {
	res := &outcome.Result{
		Stats: []watch.Stat{{Name: "server CPU", Unit: "% of a core"}},
		Runs: []*outcome.Run{
			{Name: "graph 1", Points: []*outcome.Point{
				measuredPoint(5, []float64{695, 700, 720}, []float64{7, 7, 7}, []float64{50, 55, 60}),
				measuredPoint(10, []float64{790, 812, 830}, []float64{12, 13, 14}, []float64{60, 62, 70}),
				measuredPoint(20, []float64{780, 800, 820}, []float64{25, 26, 27}, nil),
			}, Profiles: []*outcome.StepProfile{
				{ProfileSummary: &watch.ProfileSummary{Kind: "fgprof", Buckets: []watch.FuncShare{{Name: "waiting for a connection", Share: 0.70}}}, Clients: 10},
				{ProfileSummary: &watch.ProfileSummary{Kind: "fgprof", Buckets: []watch.FuncShare{{Name: "waiting for a connection", Share: 0.74}}}, Clients: 10},
			}},
			{Name: "graph 2", Points: []*outcome.Point{
				measuredPoint(5, []float64{680, 705, 730}, nil, nil),
				measuredPoint(10, []float64{800, 825, 845}, nil, nil),
			}},
			{Name: "failed", Error: "the server was not ready"},
		},
	}
	side := func(run string, clients int, metric string, factor float64) Operand {
		return Operand{Run: run, Clients: clients, Metric: metric, Factor: factor}
	}
	newClaim := func(id string, checks ...Check) Claim {
		return Claim{ID: id, Text: id, Source: "test", Checks: checks}
	}
	tests := []struct {
		claim   Claim
		outcome live.Outcome
		text    string // in the first check's text or the reason
	}{
		{newClaim("flat", Check{side("graph 1", 10, "throughput", 1), "<=", side("graph 1", 5, "throughput", 1.2)}), live.Reproduced,
			"graph 1 at 10 clients throughput 812/s (790-830) <= 1.2 × graph 1 at 5 clients throughput 700/s (695-720) = 840/s (834-864): reproduced"},
		{newClaim("cpu", Check{Operand{Run: "graph 1", Clients: 10, Reading: "server CPU", Factor: 1}, "<=", Operand{Value: num(75), Factor: 1}}), live.Reproduced,
			"graph 1 at 10 clients server CPU 62.00 % of a core (60.00-70.00) <= 75: reproduced"},
		{newClaim("rises", Check{side("graph 1", 10, "throughput", 1), ">=", side("graph 1", 5, "throughput", 1.5)}), live.NotReproduced,
			"= 1050/s (1042-1080): not reproduced"},
		// The ranges overlap: the difference is within the spread.
		{newClaim("g2-better", Check{side("graph 2", 10, "throughput", 1), ">", side("graph 1", 10, "throughput", 1)}), live.Inconclusive,
			"graph 2 at 10 clients throughput 825/s (800-845) > graph 1 at 10 clients throughput 812/s (790-830): inconclusive"},
		{newClaim("g2-not-above", Check{Operand{Run: "graph 2", At: "peak", Metric: "throughput", Factor: 1}, "not_above", Operand{Run: "graph 1", At: "peak", Metric: "throughput", Factor: 1}}), live.Reproduced,
			"graph 2 at its peak (10 clients) throughput 825/s (800-845) is not above graph 1 at its peak (10 clients) throughput 812/s (790-830): reproduced"},
		{newClaim("beyond-peak", Check{Operand{Run: "graph 1", At: "last", Metric: "mean_ms", Factor: 1}, ">", Operand{Run: "graph 1", At: "peak", Metric: "mean_ms", Factor: 1}}), live.Reproduced,
			"graph 1 at its last (20 clients) mean_ms 26.00 ms (25.00-27.00) > graph 1 at its peak (10 clients) mean_ms 13.00 ms (12.00-14.00): reproduced"},
		{newClaim("label", Check{Operand{Run: "graph 1", Clients: 10, Metric: "throughput", Label: "AllView", Factor: 1}, ">=", Operand{Value: num(4), Factor: 190}}), live.Reproduced,
			"graph 1 at 10 clients AllView throughput 812/s (790-830) >= 190 × 4 = 760: reproduced"},
		{newClaim("profile", Check{Operand{Run: "graph 1", Clients: 10, Profile: "fgprof", Bucket: "waiting for a connection", Factor: 1}, ">=", Operand{Value: num(0.45), Factor: 1}}), live.Reproduced,
			`graph 1 at 10 clients fgprof share of "waiting for a connection" 70 % (70-74) >= 0.45: reproduced`},
		// graph 2 peaks at its last point: nothing beyond the peak.
		{newClaim("beyond-none", Check{Operand{Run: "graph 2", At: "last", Metric: "throughput", Factor: 1}, "<=", Operand{Run: "graph 2", At: "peak", Metric: "throughput", Factor: 1.05}}), live.NotMeasured,
			"both sides are graph 2 at 10 clients: no point was measured beyond it"},
		{newClaim("no-run", Check{side("graph 9", 10, "throughput", 1), "<", Operand{Value: num(1), Factor: 1}}), live.NotMeasured, `run "graph 9" was not measured`},
		{newClaim("failed-run", Check{side("failed", 10, "throughput", 1), "<", Operand{Value: num(1), Factor: 1}}), live.NotMeasured, "failed has no point at 10 clients (the server was not ready)"},
		{newClaim("no-reading", Check{Operand{Run: "graph 1", Clients: 20, Reading: "server CPU", Factor: 1}, "<", Operand{Value: num(1), Factor: 1}}), live.NotMeasured, "graph 1 has no server CPU at 20 clients"},
		{newClaim("no-profile", Check{Operand{Run: "graph 2", Clients: 10, Profile: "fgprof", Bucket: "waiting for a connection", Factor: 1}, "<", Operand{Value: num(1), Factor: 1}}), live.NotMeasured, `graph 2 has no fgprof share of "waiting for a connection" at 10 clients`},
		// One check fails for certain: the claim is not reproduced, even
		// though another could not be measured.
		{newClaim("mixed", Check{side("graph 9", 10, "throughput", 1), "<", Operand{Value: num(1), Factor: 1}}, Check{side("graph 1", 10, "throughput", 1), "<", Operand{Value: num(1), Factor: 1}}), live.NotReproduced, ""},
		{newClaim("some-inconclusive", Check{side("graph 1", 10, "throughput", 1), "<=", side("graph 1", 5, "throughput", 1.2)}, Check{side("graph 2", 10, "throughput", 1), ">", side("graph 1", 10, "throughput", 1)}), live.Inconclusive, ""},
	}
	for _, tt := range tests {
		got := Evaluate([]Claim{tt.claim}, res, false)[0]
		if got.Outcome != tt.outcome {
			t.Errorf("claim %s: outcome %q; want %q (%+v)", tt.claim.ID, got.Outcome, tt.outcome, got.Checks)
		}
		if all := got.Checks[0].Text + " | " + got.Reason; !strings.Contains(all, tt.text) {
			t.Errorf("claim %s: text %q; want it to contain %q", tt.claim.ID, all, tt.text)
		}
	}
	if got := Evaluate([]Claim{tests[0].claim}, res, true)[0]; !got.Quick || !strings.Contains(got.ClaimLine(), "quick: single measurement") {
		t.Errorf("quick claim line %q; want it flagged", got.ClaimLine())
	}
}

func TestCompareRanges(t *testing.T) {
	r := func(lo, hi float64) loadtest.Spread {
		return loadtest.Spread{Median: (lo + hi) / 2, Min: lo, Max: hi, N: 3}
	}
	tests := []struct {
		a    loadtest.Spread
		op   string
		b    loadtest.Spread
		want live.Outcome
	}{
		{r(1, 2), "<", r(3, 4), live.Reproduced},
		{r(1, 3), "<", r(3, 4), live.Inconclusive},
		{r(4, 5), "<", r(1, 4), live.NotReproduced},
		{r(1, 3), "<=", r(3, 4), live.Reproduced},
		{r(3, 5), "<=", r(1, 3), live.Inconclusive},
		{r(5, 6), ">", r(1, 4), live.Reproduced},
		{r(1, 2), ">=", r(2, 4), live.Inconclusive},
		{r(1, 2), ">=", r(3, 4), live.NotReproduced},
		{r(2, 5), "not_above", r(1, 3), live.Reproduced},
		{r(4, 5), "not_above", r(1, 3), live.NotReproduced},
		{r(1, 2), "not_below", r(3, 4), live.NotReproduced},
		{r(1, 3), "not_below", r(3, 4), live.Reproduced},
	}
	for _, tt := range tests {
		if got := compareRanges(tt.a, tt.op, tt.b); got != tt.want {
			t.Errorf("compareRanges(%v-%v %s %v-%v) = %q; want %q", tt.a.Min, tt.a.Max, tt.op, tt.b.Min, tt.b.Max, got, tt.want)
		}
	}
}

func TestVerdictsWithinNoise(t *testing.T) {
	res := &outcome.Result{
		Stats: []watch.Stat{{Name: "server CPU", Unit: "%"}},
		Runs: []*outcome.Run{
			{Name: "5/5", Points: []*outcome.Point{measuredPoint(10, []float64{1000, 1100, 1200}, []float64{9, 9, 9}, []float64{50, 60, 70})}},
			{Name: "10/5", Points: []*outcome.Point{measuredPoint(10, []float64{1150, 1250, 1300}, []float64{9, 9, 9}, []float64{65, 66, 67})}},
			{Name: "10/10", Points: []*outcome.Point{measuredPoint(10, []float64{1300, 1400, 1500}, []float64{5, 5, 5}, []float64{90, 95, 99})}},
		},
	}
	v := strings.Join(Verdicts(res, nil), "\n")
	for _, want := range []string{
		"5/5: peak 1100/s (1000-1200) at 10 clients",
		"10/5 and 5/5 are the same within noise: peak 1250/s (1150-1300) against 1100/s (1000-1200) (+13.6 %; the ranges, widened to ±2 %, overlap)",
		"server CPU stayed at 66.00 % (65.00-67.00)",
		"10/10 beats 5/5: peak 1400/s (1300-1500) against 1100/s (1000-1200) (+27.3 %; beyond the spread)",
		"server CPU rose from 60.00 (50.00-70.00) to 95.00 % (90.00-99.00)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("verdicts lack %q:\n%s", want, v)
		}
	}
}

// TestClaimsPairedWhenInterleaved: two runs whose ranges overlap because
// the machine drifted between repeats, but which differ the same way in
// every interleaved pair, are told apart; without interleaving they are
// not, and pairs that disagree stay inconclusive.
func TestClaimsPairedWhenInterleaved(t *testing.T) {
	res := &outcome.Result{Runs: []*outcome.Run{
		{Name: "a", Points: []*outcome.Point{measuredPoint(10, []float64{1100, 900, 1300}, nil, nil), measuredPoint(20, []float64{1000, 1000, 1000}, nil, nil)}},
		{Name: "b", Points: []*outcome.Point{measuredPoint(10, []float64{1000, 820, 1180}, nil, nil)}},
		{Name: "c", Points: []*outcome.Point{measuredPoint(10, []float64{1000, 950, 1200}, nil, nil)}},
	}}
	check := func(left, right string, lc, rc int, op string) Claim {
		return Claim{ID: left + op + right, Checks: []Check{{
			Left:  Operand{Run: left, Clients: lc, Metric: "throughput", Factor: 1},
			Op:    op,
			Right: Operand{Run: right, Clients: rc, Metric: "throughput", Factor: 1},
		}}}
	}
	for _, tt := range []struct {
		interleave bool
		claim      Claim
		want       live.Outcome
		paired     bool
	}{
		{true, check("a", "b", 10, 10, ">"), live.Reproduced, true},         // 1.10, 1.10, 1.10
		{false, check("a", "b", 10, 10, ">"), live.Inconclusive, false},     // ranges 900-1300 and 820-1180
		{true, check("a", "c", 10, 10, ">"), live.Inconclusive, true},       // 1.10, 0.95, 1.08
		{true, check("b", "a", 10, 10, ">="), live.NotReproduced, true},     // b below a in every pair
		{true, check("b", "a", 10, 10, "not_above"), live.Reproduced, true}, // never above
		{true, check("a", "b", 10, 10, "not_above"), live.NotReproduced, true},
		{true, check("a", "b", 20, 10, ">"), live.Inconclusive, false}, // other client counts, repeats not whole sweeps
	} {
		res.Interleave, res.Sweeps = tt.interleave, false
		got := Evaluate([]Claim{tt.claim}, res, false)[0]
		if got.Outcome != tt.want || got.Checks[0].Paired != tt.paired {
			t.Errorf("%s (interleave %v): %s, paired %v; want %s, paired %v (%s)", tt.claim.ID, tt.interleave, got.Outcome, got.Checks[0].Paired, tt.want, tt.paired, got.Checks[0].Text)
		}
	}
	// Each repeat a whole sweep: repeat i of a at 20 clients and of b at
	// 10 were measured in the same sweep, and pair (ratios 1.0, 1.22, 0.85).
	res.Interleave, res.Sweeps = true, true
	if got := Evaluate([]Claim{check("a", "b", 20, 10, ">")}, res, false)[0]; !got.Checks[0].Paired || got.Outcome != live.Inconclusive {
		t.Errorf("other client counts in sweeps: %s, paired %v; want inconclusive, paired (%s)", got.Outcome, got.Checks[0].Paired, got.Checks[0].Text)
	}
	if got := Evaluate([]Claim{check("a", "b", 20, 10, ">=")}, res, false)[0]; !got.Checks[0].Paired || got.Outcome != live.Inconclusive {
		t.Errorf("a>=b at 20/10 in sweeps: %s; want inconclusive (1.22 holds, 0.85 fails)", got.Outcome)
	}
	res.Sweeps = false
	if txt := Evaluate([]Claim{check("a", "b", 10, 10, ">")}, res, false)[0].Checks[0].Text; !strings.Contains(txt, "paired by repeat, ratios 1.100, 1.098, 1.102") {
		t.Errorf("paired text %q; want the ratios of the pairs", txt)
	}
}

// TestProfileSharesPaired: two runs' profile shares at the same client
// count are compared repeat by repeat when the runs were interleaved and
// each profile says its repeat; the ranges here overlap, the pairs agree.
func TestProfileSharesPaired(t *testing.T) {
	const bucket = "getting a connection"
	profiles := func(shares ...float64) []*outcome.StepProfile {
		var out []*outcome.StepProfile
		for i, s := range shares {
			out = append(out, &outcome.StepProfile{Clients: 5, Repeat: i + 1,
				ProfileSummary: &watch.ProfileSummary{Kind: "fgprof", Buckets: []watch.FuncShare{{Name: bucket, Share: s}}}})
		}
		return out
	}
	unnumbered := profiles(0.50, 0.40, 0.60)
	for _, p := range unnumbered {
		p.Repeat = 0
	}
	res := &outcome.Result{Interleave: true, Runs: []*outcome.Run{
		// Listed out of order: the pairs follow the repeat numbers.
		{Name: "each", Points: []*outcome.Point{measuredPoint(5, []float64{50, 50, 50}, nil, nil)},
			Profiles: []*outcome.StepProfile{profiles(0.50, 0.40, 0.60)[2], profiles(0.50, 0.40, 0.60)[0], profiles(0.50, 0.40, 0.60)[1]}},
		{Name: "all", Points: []*outcome.Point{measuredPoint(5, []float64{900, 900, 900}, nil, nil)}, Profiles: profiles(0.45, 0.35, 0.55)},
		{Name: "old", Points: []*outcome.Point{measuredPoint(5, []float64{900, 900, 900}, nil, nil)}, Profiles: unnumbered},
	}}
	share := func(run string) Operand {
		return Operand{Run: run, Clients: 5, Profile: "fgprof", Bucket: bucket, Factor: 1}
	}
	for _, tt := range []struct {
		left, right string
		op          string
		want        live.Outcome
		paired      bool
		text        string
	}{
		{"each", "all", ">", live.Reproduced, true, "ratios 1.111, 1.143, 1.091"},
		{"all", "each", ">=", live.NotReproduced, true, "paired by repeat"},
		{"each", "old", ">", live.Inconclusive, false, "(40-60)"}, // no repeat numbers: the ranges, which overlap
	} {
		c := Claim{ID: tt.left + tt.op + tt.right, Checks: []Check{{Left: share(tt.left), Op: tt.op, Right: share(tt.right)}}}
		got := Evaluate([]Claim{c}, res, false)[0]
		if got.Outcome != tt.want || got.Checks[0].Paired != tt.paired || !strings.Contains(got.Checks[0].Text, tt.text) {
			t.Errorf("%s: %s, paired %v (%s); want %s, paired %v, text with %q", c.ID, got.Outcome, got.Checks[0].Paired, got.Checks[0].Text, tt.want, tt.paired, tt.text)
		}
	}
}

// TestControlDecidesTheClaim: a claim whose checks hold is reproduced only
// when its control's fail; a control that holds too makes it "does not
// discriminate", one within the noise "inconclusive", one not measured
// "not measured"; a claim that fails stays failed whatever its control.
func TestControlDecidesTheClaim(t *testing.T) {
	res := &outcome.Result{Runs: []*outcome.Run{
		{Name: "few", Points: []*outcome.Point{measuredPoint(10, []float64{1000, 1010, 990}, nil, nil)}},
		{Name: "more", Points: []*outcome.Point{measuredPoint(10, []float64{1600, 1620, 1590}, nil, nil)}},
		{Name: "same", Points: []*outcome.Point{measuredPoint(10, []float64{1005, 1000, 995}, nil, nil)}},
		{Name: "noisy", Points: []*outcome.Point{measuredPoint(10, []float64{900, 1300, 1050}, nil, nil)}},
	}}
	atMost := func(run string, ct *Control) Claim {
		return Claim{ID: run, Control: ct, Checks: []Check{{
			Left: Operand{Run: run, Clients: 10, Metric: "throughput", Factor: 1}, Op: "<=", Right: Operand{Value: num(1100), Factor: 1}}}}
	}
	instead := func(run string) *Control { return &Control{Why: "w", Runs: map[string]string{"few": run}} }
	for _, tt := range []struct {
		claim       Claim
		want, wantC live.Outcome
	}{
		{atMost("few", instead("more")), live.Reproduced, live.NotReproduced},
		{atMost("few", instead("same")), live.DoesNotDiscriminate, live.Reproduced},
		{atMost("few", instead("noisy")), live.Inconclusive, live.Inconclusive},
		{atMost("few", instead("gone")), live.NotMeasured, live.NotMeasured},
		{atMost("more", &Control{Why: "w", Runs: map[string]string{"more": "few"}}), live.NotReproduced, live.Reproduced},
		{atMost("few", nil), live.Reproduced, ""},
	} {
		got := Evaluate([]Claim{tt.claim}, res, false)[0]
		gotC := live.Outcome("")
		if got.Control != nil {
			gotC = got.Control.Outcome
		}
		if got.Outcome != tt.want || gotC != tt.wantC {
			t.Errorf("%s with control %+v: %s (control %s); want %s (control %s): %s", tt.claim.ID, tt.claim.Control, got.Outcome, gotC, tt.want, tt.wantC, got.Reason)
		}
	}
	// The report's control lines (package report) print these.
	ct := Evaluate([]Claim{atMost("few", instead("more"))}, res, false)[0].Control
	if ct == nil || ct.Why != "w" || ct.Outcome != live.NotReproduced || len(ct.Checks) != 1 || !strings.Contains(ct.Checks[0].Text, "more at 10 clients throughput 1600/s") {
		t.Errorf("the control %+v; want why w, not reproduced, and its figures", ct)
	}
}

// TestExplainWhenNotReproduced: an explanation is said only when the
// claim reads its outcome and its check holds, with the figures; minus
// subtracts readings of the same point repeat by repeat.
func TestExplainWhenNotReproduced(t *testing.T) {
	withReadings := func(clients int, thr float64, worker, conn, wait []float64) *outcome.Point {
		p := measuredPoint(clients, []float64{thr, thr, thr}, nil, nil)
		for i, rp := range p.Repeats {
			rp.Server = map[string]float64{"worker time": worker[i], "connection time": conn[i], "pool wait": wait[i]}
		}
		return p
	}
	res := &outcome.Result{Interleave: true, Runs: []*outcome.Run{
		// Outside the pool: 2.5 - 1.2 - 0.1 = 1.2 ms, the connection's time.
		{Name: "busy", Points: []*outcome.Point{withReadings(10, 1000, []float64{2.5, 2.6, 2.4}, []float64{1.2, 1.2, 1.2}, []float64{0.1, 0.1, 0.1})}},
		// Outside the pool: 2.45 - 1.2 - 1.2 = 0.05 ms.
		{Name: "quiet", Points: []*outcome.Point{withReadings(10, 1000, []float64{2.45, 2.45, 2.45}, []float64{1.2, 1.2, 1.2}, []float64{1.2, 1.2, 1.2})}},
	}}
	x := func(run string) Explanation {
		return Explanation{When: []live.Outcome{live.NotReproduced}, Text: "the CPU queue",
			Left:  Operand{Run: run, Clients: 10, Reading: "worker time", Minus: []string{"connection time", "pool wait"}, Factor: 1},
			Op:    ">=",
			Right: Operand{Run: run, Clients: 10, Reading: "connection time", Factor: 0.1},
			Show:  []Operand{{Run: run, Clients: 10, Reading: "pool wait", Factor: 1}}}
	}
	if got := explain([]Explanation{x("busy")}, live.NotReproduced, res); len(got) != 1 ||
		!strings.Contains(got[0], "the CPU queue") || !strings.Contains(got[0], "worker time less connection time less pool wait 1.20 (1.10-1.30)") ||
		!strings.Contains(got[0], "; busy at 10 clients pool wait 0.10") {
		t.Errorf("busy: %q; want the explanation with its figures", got)
	}
	if got := explain([]Explanation{x("quiet")}, live.NotReproduced, res); len(got) != 0 {
		t.Errorf("quiet: %q; want none (0.05 ms outside the pool, under a tenth of 1.2)", got)
	}
	if got := explain([]Explanation{x("busy")}, live.Reproduced, res); len(got) != 0 {
		t.Errorf("a reproduced claim: %q; want no explanation", got)
	}
}

// TestPairsSkipDroppedRepeats checks that a check pairs the repeats both
// sides used: a repeat dropped on one side leaves its pair out.
func TestPairsSkipDroppedRepeats(t *testing.T) {
	l := side{repeats: []float64{10, 30}, slots: []int{1, 3}, clients: 5}
	r := side{repeats: []float64{5, 6, 7}, slots: []int{1, 2, 3}, clients: 5}
	a, b := pairUp(l, r)
	if !slices.Equal(a, []float64{10, 30}) || !slices.Equal(b, []float64{5, 7}) {
		t.Errorf("pairUp = %v, %v; want [10 30] against [5 7] (repeat 2 dropped on the left)", a, b)
	}
	if !pairable(l, r, true) {
		t.Errorf("two common repeats are not pairable")
	}
	l.repeats, l.slots = []float64{10}, []int{1}
	if pairable(l, r, true) {
		t.Errorf("one common repeat is pairable; want a comparison of ranges")
	}
}

func TestUSLVerdict(t *testing.T) {
	law := loadtest.USL{Lambda: 400, Sigma: 0.05, Kappa: 0.002}
	r := &outcome.Run{Name: "g3"}
	for _, c := range []int{1, 2, 5, 10, 15, 20, 30} {
		r.Points = append(r.Points, &outcome.Point{Clients: c, Result: &loadtest.Result{Total: loadtest.Stats{Clients: c, Throughput: law.Throughput(float64(c))}}})
	}
	v := uslVerdict(r)
	for _, s := range []string{"g3: USL: σ = 0.0500", "κ = 0.00200", "predicted peak", "measured peak"} {
		if !strings.Contains(v, s) {
			t.Errorf("uslVerdict = %q; want %q in it", v, s)
		}
	}
	if v := uslVerdict(&outcome.Run{Name: "two", Points: r.Points[:2]}); v != "" {
		t.Errorf("uslVerdict of 2 points = %q; want none", v)
	}
}

// TestSixPairsDecideOnTheMedian: with 6 pairs a check is decided on the
// pairs' median interval at the rules' confidence (the 2nd to the 5th
// difference at 0.75), so one pair across the threshold no longer makes
// it inconclusive, in either direction; with 3 pairs the same pair does.
// Unpaired sides are decided on their medians' intervals the same way.
func TestSixPairsDecideOnTheMedian(t *testing.T) {
	g2 := []float64{1105, 997, 1026, 1010, 1030, 1020}
	g1 := []float64{1000, 1000, 1000, 1000, 1000, 1000}
	g3 := []float64{1300, 1090, 1250, 1280, 1260, 1240}
	res := &outcome.Result{Interleave: true, Disturbance: &outcome.Disturbance{Confidence: 0.75}}
	setRuns := func(n int) {
		res.Runs = []*outcome.Run{
			{Name: "g1", Points: []*outcome.Point{measuredPoint(10, g1[:n], nil, nil)}},
			{Name: "g2", Points: []*outcome.Point{measuredPoint(10, g2[:n], nil, nil)}},
			{Name: "g3", Points: []*outcome.Point{measuredPoint(10, g3[:n], nil, nil)}},
		}
	}
	noGain := func(run string) Claim {
		return Claim{ID: run, Checks: []Check{{
			Left:  Operand{Run: run, Clients: 10, Metric: "throughput"},
			Op:    "<=",
			Right: Operand{Run: "g1", Clients: 10, Metric: "throughput", Factor: 1.1},
		}}}
	}
	for _, tt := range []struct {
		n          int
		interleave bool
		run        string
		want       live.Outcome
	}{
		{3, true, "g2", live.Inconclusive},   // 1.105 against 1.1
		{6, true, "g2", live.Reproduced},     // the 2nd to the 5th: 1.010-1.030
		{3, true, "g3", live.Inconclusive},   // 1.090 against 1.1
		{6, true, "g3", live.NotReproduced},  // 1.240-1.280
		{6, false, "g2", live.Reproduced},    // g2's median interval 1,010-1,030 below 1,100
		{6, false, "g3", live.NotReproduced}, // g3's 1,240-1,280 above it
		{3, false, "g3", live.Inconclusive},  // the range 1,090-1,300
	} {
		setRuns(tt.n)
		res.Interleave = tt.interleave
		got := Evaluate([]Claim{noGain(tt.run)}, res, false)[0]
		if got.Outcome != tt.want {
			t.Errorf("%s on %d repeats (paired %v): %s; want %s (%s)", tt.run, tt.n, tt.interleave, got.Outcome, tt.want, got.Checks[0].Text)
		}
	}
	setRuns(6)
	res.Interleave, res.Disturbance.Confidence = true, 0.95 // 6 values hold no narrower interval at 0.95
	if got := Evaluate([]Claim{noGain("g2")}, res, false)[0]; got.Outcome != live.Inconclusive {
		t.Errorf("g2 on 6 pairs at confidence 0.95: %s; want inconclusive (their range)", got.Outcome)
	}
}
