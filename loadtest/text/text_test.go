package text

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest"
	"bbslab/machine"
)

// TestSummaryReadsLikeVegetas runs the engine against a server where one
// label's path is missing and checks that the summary has vegeta's text
// report's lines, then the lab's.
func TestSummaryReadsLikeVegetas(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	res, err := loadtest.Run(t.Context(), loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL + "/", Label: "ok"}, {URL: srv.URL + "/missing", Label: "missing"}},
		Clients: 1, MaxRequests: 40, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteSummary(&b, res); err != nil {
		t.Fatal(err)
	}
	sum := b.String()
	missing := res.Labels[1].Requests
	for _, want := range []string{
		"Requests      [total, rate, throughput]",
		"Duration      [total, attack, wait]",
		"Latencies     [min, mean, 50, 90, 95, 99, 99.9, max]",
		"Bytes In      [total, mean]", "Bytes Out     [total, mean]", "Success       [ratio]",
		fmt.Sprintf("Status Codes  [code:count]                            200:%d  404:%d\n", 40-missing, missing),
		fmt.Sprintf("Error Set:\n%d × status 404 Not Found\n", missing),
		"p95 ms", "errors by kind: status", "1 clients, measured",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}

// TestSummaryLines checks the lines the summary adds for what a result
// holds: errors by kind, the timer slack, the generator's CPUs, the
// timeline, the lines watched, the
// warnings; a JTL file's result has no generator line.
func TestSummaryLines(t *testing.T) {
	r := &loadtest.Result{MeasuredSeconds: 1, Warnings: []string{"a warning"}}
	r.Total.Requests, r.Total.Errors, r.Total.ErrorKinds = 3, 3, map[string]int64{"cutoff": 2, "timeout": 1}
	r.Settings.Clients, r.Settings.Model, r.Settings.TimerSlack = 2, loadtest.ModelRate, 2*time.Millisecond
	r.Cost.Cores = &loadtest.CoresUse{CPUs: []int{0}, Busy: 50, Interference: 2}
	r.Timeline = &loadtest.Timeline{Requests: make([]loadtest.TimelineRequest, 100), Intervals: make([]loadtest.TimelineInterval, 5), SteadyIndex: -1, WarmupIndex: 10}
	var b strings.Builder
	if err := WriteSummary(&b, r, "server: a line watched"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"errors by kind: cutoff 2, timeout 1\n", "2 clients, measured 1.0 s of rate (timer slack 2ms", "generator: cpu not available",
		"its CPUs [0] over the measured span", "server: a line watched\n",
		"timeline: first 100 requests, warm-up ends at #10, no steady state found; 5 intervals", "WARNING: a warning\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	r.Tool = "jmeter-jtl"
	b.Reset()
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "generator") {
		t.Errorf("summary of a JTL file's result names a generator:\n%s", b.String())
	}
}

func TestSweepTable(t *testing.T) {
	run := func(clients int, throughput float64, server json.RawMessage) *loadtest.Result {
		r := &loadtest.Result{Server: server}
		r.Settings.Think, r.Settings.Model = 100*time.Millisecond, loadtest.ModelDelay
		r.Total.Clients, r.Total.Throughput = clients, throughput
		return r
	}
	runs := []*loadtest.Result{run(1, 9.5, nil), run(4, 38, json.RawMessage(`{}`))}
	runs[1].Cost.Bottleneck = true
	cols := []Column{{Header: "srv x", Value: func(r *loadtest.Result) (float64, bool) { return 7, r.Server != nil }}}
	var b bytes.Buffer
	if err := WriteSweepTable(&b, runs, cols); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "ideal/s") || !strings.Contains(lines[0], "srv x") ||
		!strings.Contains(lines[1], "10.0") || !strings.Contains(lines[2], "40.0") || !strings.Contains(lines[2], "7.000") ||
		!strings.Contains(lines[1], " -  ") || !strings.Contains(lines[2], "client may be the bottleneck") {
		t.Errorf("sweep table:\n%s\nwant a header with ideal/s and the server column, ideal 10.0 and 40.0, the server figure or -, the bottleneck note", b.String())
	}
	b.Reset()
	if err := WriteSweepTable(&b, runs[:1], cols); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "srv x") {
		t.Errorf("sweep table of runs without server stats has the server column:\n%s", b.String())
	}
}

func TestObjectiveResults(t *testing.T) {
	objs, err := loadtest.ParseSLO("p99<2ms,errors<1%,p99.999<1s")
	if err != nil {
		t.Fatal(err)
	}
	vs := []loadtest.ObjectiveResult{{Objective: objs[0], Pass: false, Value: 3}, {Objective: objs[1], Pass: true, Value: 0.1},
		{Objective: objs[2], Pass: true, Value: 100, Warning: "needs 100000 samples"}}
	var b bytes.Buffer
	if WriteObjectiveResults(&b, vs) {
		t.Errorf("WriteObjectiveResults reported all passed; p99 failed")
	}
	for _, want := range []string{"SLO FAIL p99<2ms: measured 3 ms\n", "SLO PASS errors<1%: measured 0.1%\n", "SLO WARNING p99.999<1s: needs 100000 samples\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("verdicts lack %q:\n%s", want, b.String())
		}
	}
	if !WriteObjectiveResults(&b, vs[1:]) {
		t.Errorf("WriteObjectiveResults reported a failure; all passed")
	}
}

// envResult is a result with the given generator and server database
// version.
func envResult(cpu string, cpus int, dbVersion string) *loadtest.Result {
	h := machine.Host()
	h.CPUModel, h.LogicalCPUs = cpu, cpus
	return &loadtest.Result{Environment: &loadtest.Environment{Generator: &h, Server: map[string]json.RawMessage{
		"database": json.RawMessage(`{"kind":"postgres","server_version":"` + dbVersion + `"}`),
		"config":   json.RawMessage(`{"pool":10}`),
	}}}
}

func TestEnvironmentWarning(t *testing.T) {
	a, same := envResult("Xeon", 2, "16.4"), envResult("Xeon", 2, "16.4")
	var b strings.Builder
	WriteEnvironmentWarning(&b, []*loadtest.Result{a, same, {}}) // a JTL result has no environment
	if b.Len() != 0 {
		t.Errorf("warning for results from one environment: %q; want none", b.String())
	}
	other := envResult("EPYC", 8, "15.2")
	b.Reset()
	WriteEnvironmentWarning(&b, []*loadtest.Result{a, same, other})
	got := b.String()
	for _, want := range []string{"WARNING: these results ran in different environments", "generator CPU model: Xeon vs EPYC",
		"generator logical CPUs: 2 vs 8", "server database.server_version: 16.4 vs 15.2"} {
		if !strings.Contains(got, want) {
			t.Errorf("warning %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "config") || strings.Contains(got, "kernel") {
		t.Errorf("warning %q names facts that are the same", got)
	}
}

func TestFlatDifferencesBounded(t *testing.T) {
	a, b := map[string]any{}, map[string]any{}
	for i := range maxDifferences + 3 {
		a[fmt.Sprintf("k%02d", i)], b[fmt.Sprintf("k%02d", i)] = i, i+1
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	d := ServerDifferences(&loadtest.Environment{Server: map[string]json.RawMessage{"config": ja}},
		&loadtest.Environment{Server: map[string]json.RawMessage{"config": jb, "database": json.RawMessage(`{"kind":"sqlite"}`)}})
	if len(d) != maxDifferences+1 || d[0] != "config.k00: 0 vs 1" || d[maxDifferences] != "4 more" {
		t.Errorf("ServerDifferences = %q; want %d differences then \"4 more\" (3 keys and the absent database)", d, maxDifferences)
	}
}
