package experiment

import (
	"strings"
	"testing"

	"bbslab/loadtest"
	"bbslab/loadtest/experiment/outcome"
	"bbslab/loadtest/live"
	"bbslab/loadtest/watch"
)

// claimBase is a valid experiment with two runs, readings, labels and a
// profile bucket, for claim syntax tests.
const claimBase = `name = "x"
[server]
command = ["bbs"]
ready = "http://127.0.0.1:1/readyz"
[stats]
url = "http://127.0.0.1:1/admin/stats"
[[stats.reading]]
name = "server CPU"
path = "machine.process_cpu.total"
kind = "gauge"
unit = "% of a core"
[profile]
url = "http://127.0.0.1:1/debug"
kinds = ["fgprof"]
at = 10
[[profile.bucket]]
name = "waiting for a connection"
frame = "acquireConn"
[load]
clients = [5, 10, 20]
duration = "1s"
[[load.request]]
label = "{{cmd}}"
url = "http://127.0.0.1:1/bbs?cmd={{cmd}}"
[[run]]
name = "graph 1"
vars = { cmd = "AllView" }
[[run]]
name = "graph 3"
vars = { cmd = "EachGetView" }
`

const goodClaims = `
[[claim]]
id = "g1-flat"
source = "the tuning article, graph 1 text"
text = "graph 1 flattens by 10 clients"
[[claim.check]]
left  = { run = "graph 1", clients = 10, metric = "throughput" }
op    = "<="
right = { run = "graph 1", clients = 5, metric = "throughput", factor = 1.2 }
[[claim.check]]
left  = { run = "graph 1", clients = 10, reading = "server CPU" }
op    = "<="
right = { value = 75 }
[[claim]]
id = "g3"
source = "the tuning article, graph 3"
text = "graph 3 beats graph 1 and waits for connections"
[[claim.check]]
left  = { run = "graph 3", at = "peak", metric = "throughput", label = "EachGetView" }
op    = ">="
right = { run = "graph 1", at = "peak", metric = "throughput", factor = 1.5 }
[[claim.check]]
left  = { run = "graph 3", clients = 10, profile = "fgprof", bucket = "waiting for a connection" }
op    = "not_below"
right = { value = 0.45 }
`

func TestParseClaims(t *testing.T) {
	e, err := parse("claims.toml", []byte(claimBase+goodClaims))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(e.Claims) != 2 || len(e.Claims[0].Checks) != 2 {
		t.Fatalf("claims = %+v; want 2 claims, the first with 2 checks", e.Claims)
	}
	k := e.Claims[0].Checks[0]
	if k.Left.Run != "graph 1" || k.Left.Clients != 10 || k.Left.Factor != 1 || k.Right.Factor != 1.2 {
		t.Errorf("first check = %+v; want graph 1 at 10 (factor 1 by default) against 1.2 x graph 1 at 5", k)
	}
	if v := e.Claims[0].Checks[1].Right.Value; v == nil || *v != 75 {
		t.Errorf("constant side = %v; want 75", v)
	}
}

func TestParseClaimErrors(t *testing.T) {
	check := func(left, op, right string) string {
		return "\n[[claim]]\nid = \"c1\"\nsource = \"s\"\ntext = \"t\"\n[[claim.check]]\nleft = " + left + "\nop = \"" + op + "\"\nright = " + right + "\n"
	}
	ok := `{ run = "graph 1", clients = 10, metric = "throughput" }`
	tests := []struct{ text, want string }{
		{check(`{ run = "graph 1", clients = 10, metric = "throughput", colour = 1 }`, "<", ok), `unknown key "claim.check.colour" at line 37`},
		{claimBase + "\n[[claim]]\nid = \"c1\"\nsource = \"s\"\ntext = \"t\"\nweight = 2\n", `unknown key "claim.weight" at line 36`},
		{check(`{ run = "graph 9", clients = 10, metric = "throughput" }`, "<", ok), `claim "c1": check 1: left: run "graph 9" is not a run of this file`},
		{check(ok, "=<", ok), `claim "c1": check 1: op = "=<"`},
		{check(`{ run = "graph 1", clients = 10, metric = "speed" }`, "<", ok), `claim "c1": check 1: left: metric = "speed"`},
		{check(ok, "<", `{ run = "graph 1", clients = 10, reading = "disk" }`), `claim "c1": check 1: right: reading "disk" is not a [[stats.reading]]`},
		{check(ok, "<", `{ run = "graph 1", clients = 7, metric = "throughput" }`), `right: clients = 7 is not one of load.clients`},
		{check(ok, "<", `{ run = "graph 1", at = "top", metric = "throughput" }`), `right: at = "top"`},
		{check(ok, "<", `{ run = "graph 1", metric = "throughput" }`), `right: clients: missing`},
		{check(ok, "<", `{ run = "graph 1", clients = 10, metric = "throughput", label = "OnceGetView" }`), `label "OnceGetView" is not a request label of run "graph 1" (its labels: AllView)`},
		{check(ok, "<", `{ run = "graph 1", clients = 10, profile = "fgprof", bucket = "in SQL" }`), `bucket "in SQL" is not a [[profile.bucket]]`},
		{check(ok, "<", `{ run = "graph 1", clients = 5, profile = "fgprof", bucket = "elsewhere" }`), `profiles are taken at 10 clients only`},
		{check(ok, "<", `{ run = "graph 1", clients = 10, profile = "cpu", bucket = "elsewhere" }`), `profile = "cpu" is not one of profile.kinds`},
		{check(ok, "<", `{ run = "graph 1", clients = 10, metric = "throughput", reading = "server CPU" }`), `exactly one of metric, reading, profile or truth`},
		{check(ok, "<", `{ value = 3, run = "graph 1" }`), `value is a constant`},
		{check(ok, "<", `{ value = 3, factor = -1 }`), `factor = -1`},
		{claimBase + "\n[[claim]]\nid = \"c1\"\ntext = \"t\"\n[[claim.check]]\nleft = " + ok + "\nop = \"<\"\nright = " + ok + "\n", `claim "c1": source: missing`},
		{claimBase + goodClaims + strings.Replace(goodClaims, `"g3"`, `"g4"`, 1), `claim "g1-flat": id used twice`},
	}
	for _, tt := range tests {
		text := tt.text
		if !strings.HasPrefix(text, "name") {
			text = claimBase + text
		}
		_, err := parse("x.toml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(...%q) = %v; want an error with %q", text[max(0, len(text)-90):], err, tt.want)
		}
	}
}

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
		addRepeat(p, outcome.NewRepeat(i+1, r, server), loadSpec{})
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
	side := func(run string, clients int, metric string, factor float64) OperandX {
		return OperandX{Run: run, Clients: clients, Metric: metric, Factor: factor}
	}
	newClaim := func(id string, checks ...CCheckX) CSpecX {
		return CSpecX{ID: id, Text: id, Source: "test", Checks: checks}
	}
	tests := []struct {
		claim   CSpecX
		outcome live.Outcome
		text    string // in the first check's text or the reason
	}{
		{newClaim("flat", CCheckX{side("graph 1", 10, "throughput", 1), "<=", side("graph 1", 5, "throughput", 1.2)}), live.Reproduced,
			"graph 1 at 10 clients throughput 812/s (790-830) <= 1.2 × graph 1 at 5 clients throughput 700/s (695-720) = 840/s (834-864): reproduced"},
		{newClaim("cpu", CCheckX{OperandX{Run: "graph 1", Clients: 10, Reading: "server CPU", Factor: 1}, "<=", OperandX{Value: num(75), Factor: 1}}), live.Reproduced,
			"graph 1 at 10 clients server CPU 62.00 % of a core (60.00-70.00) <= 75: reproduced"},
		{newClaim("rises", CCheckX{side("graph 1", 10, "throughput", 1), ">=", side("graph 1", 5, "throughput", 1.5)}), live.NotReproduced,
			"= 1050/s (1042-1080): not reproduced"},
		// The ranges overlap: the difference is within the spread.
		{newClaim("g2-better", CCheckX{side("graph 2", 10, "throughput", 1), ">", side("graph 1", 10, "throughput", 1)}), live.Inconclusive,
			"graph 2 at 10 clients throughput 825/s (800-845) > graph 1 at 10 clients throughput 812/s (790-830): inconclusive"},
		{newClaim("g2-not-above", CCheckX{OperandX{Run: "graph 2", At: "peak", Metric: "throughput", Factor: 1}, "not_above", OperandX{Run: "graph 1", At: "peak", Metric: "throughput", Factor: 1}}), live.Reproduced,
			"graph 2 at its peak (10 clients) throughput 825/s (800-845) is not above graph 1 at its peak (10 clients) throughput 812/s (790-830): reproduced"},
		{newClaim("beyond-peak", CCheckX{OperandX{Run: "graph 1", At: "last", Metric: "mean_ms", Factor: 1}, ">", OperandX{Run: "graph 1", At: "peak", Metric: "mean_ms", Factor: 1}}), live.Reproduced,
			"graph 1 at its last (20 clients) mean_ms 26.00 ms (25.00-27.00) > graph 1 at its peak (10 clients) mean_ms 13.00 ms (12.00-14.00): reproduced"},
		{newClaim("label", CCheckX{OperandX{Run: "graph 1", Clients: 10, Metric: "throughput", Label: "AllView", Factor: 1}, ">=", OperandX{Value: num(4), Factor: 190}}), live.Reproduced,
			"graph 1 at 10 clients AllView throughput 812/s (790-830) >= 190 × 4 = 760: reproduced"},
		{newClaim("profile", CCheckX{OperandX{Run: "graph 1", Clients: 10, Profile: "fgprof", Bucket: "waiting for a connection", Factor: 1}, ">=", OperandX{Value: num(0.45), Factor: 1}}), live.Reproduced,
			`graph 1 at 10 clients fgprof share of "waiting for a connection" 70 % (70-74) >= 0.45: reproduced`},
		// graph 2 peaks at its last point: nothing beyond the peak.
		{newClaim("beyond-none", CCheckX{OperandX{Run: "graph 2", At: "last", Metric: "throughput", Factor: 1}, "<=", OperandX{Run: "graph 2", At: "peak", Metric: "throughput", Factor: 1.05}}), live.NotMeasured,
			"both sides are graph 2 at 10 clients: no point was measured beyond it"},
		{newClaim("no-run", CCheckX{side("graph 9", 10, "throughput", 1), "<", OperandX{Value: num(1), Factor: 1}}), live.NotMeasured, `run "graph 9" was not measured`},
		{newClaim("failed-run", CCheckX{side("failed", 10, "throughput", 1), "<", OperandX{Value: num(1), Factor: 1}}), live.NotMeasured, "failed has no point at 10 clients (the server was not ready)"},
		{newClaim("no-reading", CCheckX{OperandX{Run: "graph 1", Clients: 20, Reading: "server CPU", Factor: 1}, "<", OperandX{Value: num(1), Factor: 1}}), live.NotMeasured, "graph 1 has no server CPU at 20 clients"},
		{newClaim("no-profile", CCheckX{OperandX{Run: "graph 2", Clients: 10, Profile: "fgprof", Bucket: "waiting for a connection", Factor: 1}, "<", OperandX{Value: num(1), Factor: 1}}), live.NotMeasured, `graph 2 has no fgprof share of "waiting for a connection" at 10 clients`},
		// One check fails for certain: the claim is not reproduced, even
		// though another could not be measured.
		{newClaim("mixed", CCheckX{side("graph 9", 10, "throughput", 1), "<", OperandX{Value: num(1), Factor: 1}}, CCheckX{side("graph 1", 10, "throughput", 1), "<", OperandX{Value: num(1), Factor: 1}}), live.NotReproduced, ""},
		{newClaim("some-inconclusive", CCheckX{side("graph 1", 10, "throughput", 1), "<=", side("graph 1", 5, "throughput", 1.2)}, CCheckX{side("graph 2", 10, "throughput", 1), ">", side("graph 1", 10, "throughput", 1)}), live.Inconclusive, ""},
	}
	for _, tt := range tests {
		got := evaluateClaims([]CSpecX{tt.claim}, res, false)[0]
		if got.Outcome != tt.outcome {
			t.Errorf("claim %s: outcome %q; want %q (%+v)", tt.claim.ID, got.Outcome, tt.outcome, got.Checks)
		}
		if all := got.Checks[0].Text + " | " + got.Reason; !strings.Contains(all, tt.text) {
			t.Errorf("claim %s: text %q; want it to contain %q", tt.claim.ID, all, tt.text)
		}
	}
	if got := evaluateClaims([]CSpecX{tests[0].claim}, res, true)[0]; !got.Quick || !strings.Contains(got.ClaimLine(), "quick: single measurement") {
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
	v := strings.Join(verdicts(res, nil), "\n")
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

func TestRepeatKeepsMedianResult(t *testing.T) {
	p := measuredPoint(10, []float64{900, 700, 800}, []float64{3, 1, 2}, nil)
	if p.Result.Total.Throughput != 800 || len(p.Repeats) != 3 {
		t.Errorf("point outcome.Result throughput %v with %d repeats; want the median repeat (800) and 3 repeats", p.Result.Total.Throughput, len(p.Repeats))
	}
	if s := p.Summary.Total["mean_ms"]; s != (loadtest.Spread{Median: 2, Min: 1, Max: 3, N: 3}) {
		t.Errorf("mean_ms summary %+v; want median 2, range 1-3", s)
	}
	// A point of the older form (no repeats) reads as one measurement.
	old := &outcome.Point{Clients: 1, Result: &loadtest.Result{Total: loadtest.Stats{Throughput: 5}}}
	if s := old.Throughput(); s.N != 1 || s.Median != 5 {
		t.Errorf("old point throughput %+v; want one measurement of 5", s)
	}
}

func TestSpreadText(t *testing.T) {
	for _, tt := range []struct {
		s      loadtest.Spread
		format string
		want   string
	}{
		{loadtest.Spread{Median: 812, Min: 790, Max: 830, N: 3}, "%.0f", "812/s (790-830)"},
		{loadtest.Spread{Median: 812, Min: 812, Max: 812, N: 1}, "%.0f", "812/s"},
		{loadtest.Spread{Median: 0.000564, Min: 0.0004, Max: 0.0012, N: 3}, "auto", "0.000564/s (0.0004-0.0012)"},
		{loadtest.Spread{Median: 62, Min: 0, Max: 1234.5, N: 2}, "auto", "62.00/s (0.00-1234)"},
	} {
		if got := outcome.SpreadText(tt.s, tt.format, "/s"); got != tt.want {
			t.Errorf("spreadText(%+v, %q) = %q; want %q", tt.s, tt.format, got, tt.want)
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
	check := func(left, right string, lc, rc int, op string) CSpecX {
		return CSpecX{ID: left + op + right, Checks: []CCheckX{{
			Left:  OperandX{Run: left, Clients: lc, Metric: "throughput", Factor: 1},
			Op:    op,
			Right: OperandX{Run: right, Clients: rc, Metric: "throughput", Factor: 1},
		}}}
	}
	for _, tt := range []struct {
		interleave bool
		claim      CSpecX
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
		got := evaluateClaims([]CSpecX{tt.claim}, res, false)[0]
		if got.Outcome != tt.want || got.Checks[0].Paired != tt.paired {
			t.Errorf("%s (interleave %v): %s, paired %v; want %s, paired %v (%s)", tt.claim.ID, tt.interleave, got.Outcome, got.Checks[0].Paired, tt.want, tt.paired, got.Checks[0].Text)
		}
	}
	// Each repeat a whole sweep: repeat i of a at 20 clients and of b at
	// 10 were measured in the same sweep, and pair (ratios 1.0, 1.22, 0.85).
	res.Interleave, res.Sweeps = true, true
	if got := evaluateClaims([]CSpecX{check("a", "b", 20, 10, ">")}, res, false)[0]; !got.Checks[0].Paired || got.Outcome != live.Inconclusive {
		t.Errorf("other client counts in sweeps: %s, paired %v; want inconclusive, paired (%s)", got.Outcome, got.Checks[0].Paired, got.Checks[0].Text)
	}
	if got := evaluateClaims([]CSpecX{check("a", "b", 20, 10, ">=")}, res, false)[0]; !got.Checks[0].Paired || got.Outcome != live.Inconclusive {
		t.Errorf("a>=b at 20/10 in sweeps: %s; want inconclusive (1.22 holds, 0.85 fails)", got.Outcome)
	}
	res.Sweeps = false
	if txt := evaluateClaims([]CSpecX{check("a", "b", 10, 10, ">")}, res, false)[0].Checks[0].Text; !strings.Contains(txt, "paired by repeat, ratios 1.100, 1.098, 1.102") {
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
	share := func(run string) OperandX {
		return OperandX{Run: run, Clients: 5, Profile: "fgprof", Bucket: bucket, Factor: 1}
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
		c := CSpecX{ID: tt.left + tt.op + tt.right, Checks: []CCheckX{{Left: share(tt.left), Op: tt.op, Right: share(tt.right)}}}
		got := evaluateClaims([]CSpecX{c}, res, false)[0]
		if got.Outcome != tt.want || got.Checks[0].Paired != tt.paired || !strings.Contains(got.Checks[0].Text, tt.text) {
			t.Errorf("%s: %s, paired %v (%s); want %s, paired %v, text with %q", c.ID, got.Outcome, got.Checks[0].Paired, got.Checks[0].Text, tt.want, tt.paired, tt.text)
		}
	}
}
