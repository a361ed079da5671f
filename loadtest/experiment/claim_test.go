package experiment

import (
	"strings"
	"testing"

	"bbslab/loadtest"
	"bbslab/loadtest/outcome"
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
