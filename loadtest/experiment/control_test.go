package experiment

import (
	"compress/gzip"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"bbslab/loadtest/claim"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
)

// TestControlValidation: a control names runs and client counts the
// claim reads, replaced by others of the file, and says why.
func TestControlValidation(t *testing.T) {
	base := `name = "x"
[server]
command = ["true"]
ready = "http://127.0.0.1:{{port}}/"
[load]
clients = [5, 10]
duration = "1s"
[[load.request]]
url = "http://127.0.0.1:{{port}}/"
[[run]]
name = "a"
[[run]]
name = "b"
[[claim]]
id = "c"
source = "s"
text = "t"
[[claim.check]]
left  = { run = "a", clients = 10, metric = "throughput" }
op    = ">="
right = { value = 1 }
`
	for _, tt := range []struct{ control, want string }{
		{"[claim.control]\nwhy = \"w\"\nruns = { \"a\" = \"b\" }\n", ""},
		{"[claim.control]\nwhy = \"w\"\nclients = { \"10\" = 5 }\n", ""},
		{"[claim.control]\nruns = { \"a\" = \"b\" }\n", "control.why: missing"},
		{"[claim.control]\nwhy = \"w\"\n", "give runs"},
		{"[claim.control]\nwhy = \"w\"\nruns = { \"b\" = \"a\" }\n", `"b" is not a run the claim's checks read`},
		{"[claim.control]\nwhy = \"w\"\nruns = { \"a\" = \"a\" }\n", "replaced by itself"},
		{"[claim.control]\nwhy = \"w\"\nruns = { \"a\" = \"z\" }\n", `run "z" is not a run of this file`},
		{"[claim.control]\nwhy = \"w\"\nclients = { \"5\" = 10 }\n", "5 is not a client count the claim's checks read"},
		{"[claim.control]\nwhy = \"w\"\nclients = { \"10\" = 7 }\n", "clients = 7 is not one of load.clients"},
		{"[claim.control]\nwhy = \"w\"\nclients = { \"ten\" = 5 }\n", `key "ten": want a client count`},
	} {
		_, err := parse("x.toml", []byte(base+tt.control))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v; want it accepted", tt.control, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: %v; want an error saying %q", tt.control, err, tt.want)
		}
	}
}

// TestBeyondPeakCanFail runs simulated sweeps of graph 3 through
// article.toml's g3-beyond-peak and its control. Curves that still rise
// from 15 to 30 clients by more than the noise must read "not reproduced"
// (the curve did not stop), curves that stop must read "reproduced", and
// across random curves every outcome the rule can give must occur: the
// claim the rule replaced, "last <= 1.1 x peak" with the peak the highest
// point, could not fail at all.
func TestBeyondPeakCanFail(t *testing.T) {
	t.Parallel() // arithmetic on simulated sweeps
	e, err := Load("../experiments/article.toml")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(e.Claims, func(c claim.Claim) bool { return c.ID == "g3-beyond-peak" })
	if i < 0 {
		t.Fatal("article.toml has no g3-beyond-peak")
	}
	c := e.Claims[i]
	run := c.Checks[0].Left.Run
	// 20,000 curves: about 6,700 of each kind, a share's standard error
	// under 0.6 points.
	n := 20000
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[string]map[live.Outcome]int{}
	for range n {
		// A curve through 5, 10, 15 and 30 clients: from 5 to 10 it rises
		// (graph 3 below its peak), from 15 to 30 it grows by g, anywhere
		// from a 30 % fall to doubling; each point measured 3 times with
		// up to 5 % noise.
		base := 3000 + 1000*rng.Float64()
		g := 0.7 + 1.3*rng.Float64()
		truth := map[int]float64{5: base, 10: base * (1.4 + 0.5*rng.Float64()), 15: base * 1.8}
		truth[30] = truth[15] * g
		var ps []*outcome.Point
		for _, cl := range []int{5, 10, 15, 30} {
			var thr []float64
			for range 3 {
				thr = append(thr, truth[cl]*(1+0.1*(rng.Float64()-0.5)))
			}
			ps = append(ps, measuredPoint(cl, thr, nil, nil))
		}
		res := &outcome.Result{Interleave: true, Sweeps: true, Runs: []*outcome.Run{{Name: run, Points: ps}}}
		kind := "random"
		switch {
		case g >= 1.25:
			kind = "rising"
		case g <= 1.0:
			kind = "stopped"
		}
		if counts[kind] == nil {
			counts[kind] = map[live.Outcome]int{}
		}
		counts[kind][claim.Evaluate([]claim.Claim{c}, res, false)[0].Outcome]++
	}
	t.Logf("%d sweeps: %v", n, counts)
	share := func(kind string, o live.Outcome) float64 {
		total := 0
		for _, v := range counts[kind] {
			total += v
		}
		return float64(counts[kind][o]) / float64(total)
	}
	if s := share("rising", live.NotReproduced); s < 0.99 {
		t.Errorf("curves rising from 15 to 30 clients by 25 %% or more: %.3f read not reproduced; want nearly all", s)
	}
	if s := share("stopped", live.Reproduced); s < 0.99 {
		t.Errorf("curves flat or falling from 15 to 30 clients: %.3f read reproduced; want nearly all", s)
	}
	if counts["random"][live.Inconclusive] == 0 || counts["random"][live.NotMeasured] != 0 {
		t.Errorf("curves between: %v; want some inconclusive (within the noise of 1.1 x) and none not measured", counts["random"])
	}
}

// TestExplainBesideAHog decides article.toml on a full run beside a
// process of the board's priority spinning on its core (testdata,
// 2026-12-06 06:09 UTC, docs/measurements.md): g2-no-gain fails to hold
// and the report says why from the readings. On the committed report's
// run, with no such process, the same explanation's check does not hold.
func TestExplainBesideAHog(t *testing.T) {
	e, err := Load("../experiments/article.toml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/article-beside-a-hog.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var hog outcome.Result
	if err := json.NewDecoder(z).Decode(&hog); err != nil {
		t.Fatal(err)
	}
	quiet, err := committedResult("article")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(e.Claims, func(c claim.Claim) bool { return c.ID == "g2-no-gain" })
	c := e.Claims[i]
	got := claim.Evaluate([]claim.Claim{c}, &hog, false)[0]
	t.Logf("beside a hog: g2-no-gain %s; %q", got.Outcome, got.Explained)
	if got.Outcome == live.Reproduced || len(got.Explained) != 1 || !strings.Contains(got.Explained[0], "the CPU queue, not the pool") ||
		!strings.Contains(got.Explained[0], "server core busy less server CPU") {
		t.Errorf("beside a hog: %s, explained %q; want it not holding, explained by the core another process took", got.Outcome, got.Explained)
	}
	// An explanation is said when the claim reads one of its outcomes and
	// its check holds: decided as a claim of that one check.
	for _, o := range []live.Outcome{live.NotReproduced, live.Inconclusive} {
		for _, x := range c.Explain {
			k := claim.Claim{ID: c.ID, Checks: []claim.Check{{Left: x.Left, Op: x.Op, Right: x.Right}}}
			if got := claim.Evaluate([]claim.Claim{k}, quiet, false)[0]; slices.Contains(x.When, o) && got.Outcome == live.Reproduced {
				t.Errorf("the committed run, had g2-no-gain read %s: explained %q (%s); want no explanation (no other process on the core)", o, x.Text, got.Checks[0].Text)
			}
		}
	}
}
