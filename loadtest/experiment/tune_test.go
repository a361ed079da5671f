package experiment

import (
	"strings"
	"testing"

	"bbslab/loadtest"
	"bbslab/loadtest/claim"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/tune"
	"bbslab/loadtest/watch"
)

// tuneBase is a file with [tune] whose claims the tests append.
const tuneBase = `name = "t"
[server]
command = ["bbs", "-admin-addr", "127.0.0.1:{{admin_port}}"]
ready = "http://127.0.0.1:{{admin_port}}/readyz"
[load]
clients = [20]
duration = "2s"
[[load.request]]
url = "http://127.0.0.1:{{port}}/bbs?cmd={{cmd}}"
[[run]]
name = "A"
vars = { cmd = "AllView" }
[tune]
admin = "http://127.0.0.1:{{admin_port}}"
slo = "p99<10ms"
starts = ["5/5", "40/40"]
side_by_side = 3
`

func TestTuneSectionChecks(t *testing.T) {
	for _, tt := range []struct {
		edit, want string
	}{
		{`starts = ["5/5", "forty"]`, `tune.starts: "forty"`},
		{`slo = "p99=10ms"`, "tune.slo"},
		{`side_by_side = 30`, "tune.side_by_side = 30"},
		{`side_by_side = -1`, "tune.side_by_side = -1"},
		{`admin = ""`, "tune.admin: missing"},
		{`duration = "1s"`, "a tuning's steps need 2s or more"},
		{"[[claim]]\nid = \"c\"\nsource = \"s\"\ntext = \"t\"\n[[claim.check]]\nleft = { run = \"A\", tune = \"8/8\", metric = \"winner_throughput\" }\nop = \">\"\nright = { value = 1 }", `tune = "8/8" is not one of tune.starts`},
		{"[[claim]]\nid = \"c\"\nsource = \"s\"\ntext = \"t\"\n[[claim.check]]\nleft = { run = \"A\", tune = \"5/5\", metric = \"throughput\" }\nop = \">\"\nright = { value = 1 }", `a tuning's figure is one of`},
		{"[[claim]]\nid = \"c\"\nsource = \"s\"\ntext = \"t\"\n[[claim.check]]\nleft = { run = \"A\", tune = \"5/5\", clients = 20, metric = \"application\" }\nop = \">\"\nright = { value = 1 }", "no clients"},
	} {
		text := tuneBase
		if strings.HasPrefix(tt.edit, "duration") { // [load]'s
			text = strings.Replace(text, `duration = "2s"`, tt.edit, 1)
		} else if key, _, ok := strings.Cut(tt.edit, " = "); ok && !strings.HasPrefix(tt.edit, "[[") {
			head, sec, _ := strings.Cut(text, "[tune]")
			lines := strings.Split(sec, "\n")
			for i, l := range lines {
				if strings.HasPrefix(l, key+" = ") {
					lines[i] = tt.edit
				}
			}
			text = head + "[tune]" + strings.Join(lines, "\n")
		} else {
			text += tt.edit + "\n"
		}
		if _, err := parse("t.toml", []byte(text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: parse = %v; want an error naming %q", tt.edit, err, tt.want)
		}
	}
	e, err := parse("t.toml", []byte(tuneBase))
	if err != nil || !e.Tune.on() || e.Tune.slo(e) != "p99<10ms" {
		t.Fatalf("parse = %v, %v; want [tune] on", e, err)
	}
}

// tuned is a synthetic tuning: start 40/40 at 1,000-1,100/s, winner 10/10
// at 1,050-1,150/s, stopped at the capacity.
func tuned(outcome string) *tune.Result {
	st := func(n int, k watch.Knobs, lo, hi float64) tune.Step {
		return tune.Step{N: n, Measurement: tune.Measurement{Knobs: k, Throughput: loadtest.Spread{Median: (lo + hi) / 2, Min: lo, Max: hi, N: 3}},
			Diagnosis: tune.Diagnosis{Limit: tune.Capacity, Evidence: "cores 95% busy"}, Decision: "fewer | of both"}
	}
	return &tune.Result{Objectives: []string{"p99<10ms"}, Steps: []tune.Step{st(1, watch.Knobs{Workers: 40, Pool: 40}, 1000, 1100), st(2, watch.Knobs{Workers: 10, Pool: 10}, 1050, 1150)},
		Winner: watch.Knobs{Workers: 10, Pool: 10}, WinnerMet: true, Outcome: outcome, Measurements: 2, Stopped: "stop: capacity",
		Rules: tune.Rules{WorkersPool: "holds: 10 workers = 10 connections + 0", MinMax: "not checked"}}
}

func TestTuneClaims(t *testing.T) {
	e, err := parse("t.toml", []byte(tuneBase+`
[[claim]]
id = "down"
source = "s"
text = "t"
[[claim.check]]
left  = { run = "A", tune = "40/40", metric = "winner_resources" }
op    = "<"
right = { value = 80 }
[[claim.check]]
left  = { run = "A", tune = "40/40", metric = "winner_throughput" }
op    = "not_below"
right = { run = "A", tune = "40/40", metric = "start_throughput" }
[[claim]]
id = "above"
source = "s"
text = "t"
[[claim.check]]
left  = { run = "A", tune = "40/40", metric = "winner_throughput" }
op    = ">"
right = { run = "A", tune = "40/40", metric = "start_throughput" }
[[claim]]
id = "app"
source = "s"
text = "t"
[[claim.check]]
left  = { run = "A", tune = "40/40", metric = "application" }
op    = ">="
right = { value = 1 }
[[claim]]
id = "missing"
source = "s"
text = "t"
[[claim.check]]
left  = { run = "A", tune = "5/5", metric = "winner_met" }
op    = ">="
right = { value = 1 }
`))
	if err != nil {
		t.Fatal(err)
	}
	res := &outcome.Result{Tunes: []*outcome.TuneRun{{Run: "A", Start: "40/40", Result: tuned("capacity")}}}
	got := map[string]live.Outcome{}
	for _, c := range claim.Evaluate(e.Claims, res, false) {
		got[c.ID] = c.Outcome
		t.Logf("%s: %s: %v", c.ID, c.Outcome, c.Checks)
	}
	want := map[string]live.Outcome{"down": live.Reproduced, "above": live.Inconclusive, "app": live.NotReproduced, "missing": live.NotMeasured}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("claim %s: %s; want %s", id, got[id], w)
		}
	}
}
