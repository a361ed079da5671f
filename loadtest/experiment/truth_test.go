package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/claim"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
)

// truthJSON is a truth in the server's format (docs/truth.md) with one
// stall of 500 ms, 2 s into a window from t0, and a median service time of
// 1 ms.
func truthJSON(t0 time.Time, stallAt, stallFor time.Duration) string {
	f := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	return fmt.Sprintf(`{"version": 1, "window": {"start": %q, "end": %q, "open": false}, "requests": 2400,
  "status": {"200": 2400}, "seconds": [],
  "server_ms": {"count": 2400, "mean": 20, "p50": 1.1, "p90": 2, "p95": 3, "p99": 400, "p999": 490, "max": 501},
  "service_ms": {"count": 2400, "mean": 1, "p50": 1, "p90": 1.5, "p95": 2, "p99": 3, "p999": 4, "max": 5},
  "stalls": [{"start": %q, "end": %q}], "log": false}`,
		f(t0), f(t0.Add(6*time.Second)), f(t0.Add(stallAt)), f(t0.Add(stallAt+stallFor)))
}

// stalledResult is a 6 s step from t0: fast requests at 1 ms, and slow
// ones at 400 ms (the stall's, as the tool saw them); p90 as given.
func stalledResult(t0 time.Time, fast, slow int64, p90 float64) *loadtest.Result {
	h := loadtest.NewHistogram()
	h.RecordN(time.Millisecond, fast)
	h.RecordN(400*time.Millisecond, slow)
	return &loadtest.Result{MeasureStart: t0, End: t0.Add(6 * time.Second), MeasuredSeconds: 6,
		Total: loadtest.Stats{Clients: 10, Requests: fast + slow, Throughput: float64(fast+slow) / 6, P90Ms: p90, Histogram: h}}
}

// TestTruthFigures checks the figures a step's truth gives: a closed loop
// that sent 10 of the stall's requests misses most of the tail its rate
// puts there, an open one that sent them all misses none, and a stall cut
// by the window's edge gives no tail.
func TestTruthFigures(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		fast, slow int64
		stallAt    time.Duration
		missing    float64 // want, ±0.02; -1: none
		note       string
	}{
		{"closed", 2400, 10, 2 * time.Second, 0.9, ""},
		{"open", 2300, 100, 2 * time.Second, 0, ""},
		{"cut by the window's start", 2300, 100, -200 * time.Millisecond, -1, "no whole stall"},
	}
	for _, tt := range tests {
		rp := outcome.NewRepeat(1, stalledResult(t0, tt.fast, tt.slow, 1), nil)
		addTruth(rp, []byte(truthJSON(t0, tt.stallAt, 500*time.Millisecond)), nil)
		got, ok := rp.TruthFigures["stall_tail_missing"]
		switch {
		case tt.missing < 0 && ok:
			t.Errorf("%s: stall_tail_missing = %g; want none", tt.name, got)
		case tt.missing >= 0 && (!ok || math.Abs(got-tt.missing) > 0.02):
			t.Errorf("%s: stall_tail_missing = %g (%v; note %q); want %g", tt.name, got, ok, rp.TruthNote, tt.missing)
		}
		if !strings.Contains(rp.TruthNote, tt.note) || (tt.note == "") != (rp.TruthNote == "") {
			t.Errorf("%s: note %q; want %q", tt.name, rp.TruthNote, tt.note)
		}
		if tt.missing >= 0 {
			// Arrivals spread over 500 ms wait 500..1 ms, then 1 ms of service.
			if p50 := rp.TruthFigures["stall_expected_p50_ms"]; math.Abs(p50-251) > 2 {
				t.Errorf("%s: stall_expected_p50_ms = %g; want about 251", tt.name, p50)
			}
		}
		if rp.TruthFigures["served"] != 2400 || len(rp.Truth) == 0 {
			t.Errorf("%s: served %g, truth kept %d bytes; want 2400 and the truth", tt.name, rp.TruthFigures["served"], len(rp.Truth))
		}
	}
	rp := outcome.NewRepeat(1, stalledResult(t0, 1, 1, 1), nil)
	addTruth(rp, []byte(`{"version": 2}`), nil)
	if rp.TruthFigures != nil || !strings.Contains(rp.TruthNote, "version 2") {
		t.Errorf("a truth of version 2: figures %v, note %q; want none and a note naming the version", rp.TruthFigures, rp.TruthNote)
	}
}

// TestTruthWatcher runs a step against a fake server whose truth
// endpoints record what they were sent: the start names the measured
// window, the stop comes after it and its answer is kept; a start the
// server refuses gives a note and no stop.
func TestTruthWatcher(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		var mu sync.Mutex
		var at, until string
		stops := 0
		admin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			switch r.URL.Path {
			case "/truth/start":
				if refuse {
					http.Error(w, "at: in the past", http.StatusBadRequest)
					return
				}
				at, until = r.URL.Query().Get("at"), r.URL.Query().Get("until")
			case "/truth/stop":
				stops++
				io.WriteString(w, `{"version": 1, "requests": 7, "stalls": []}`)
			}
		}))
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
		tw := &truthWatcher{start: admin.URL + "/truth/start?at={{window_start}}&until={{window_end}}", stop: admin.URL + "/truth/stop"}
		r, err := loadtest.Run(context.Background(), loadtest.Settings{Requests: []loadtest.Request{{URL: target.URL}}, Clients: 1,
			Warmup: 100 * time.Millisecond, Duration: 100 * time.Millisecond, Model: loadtest.ModelDelay, Think: 10 * time.Millisecond, Watcher: tw})
		admin.Close()
		target.Close()
		if err != nil {
			t.Fatal(err)
		}
		rp := outcome.NewRepeat(1, r, nil)
		addTruth(rp, tw.truth, tw.err)
		if refuse {
			if stops != 0 || !strings.Contains(rp.TruthNote, "truth start") || rp.Truth != nil {
				t.Errorf("refused start: %d stops, note %q, truth %s; want no stop, a note and no truth", stops, rp.TruthNote, rp.Truth)
			}
			continue
		}
		if stops != 1 || rp.TruthFigures["served"] != 7 {
			t.Errorf("%d stops, figures %v (note %q); want 1 stop and served 7", stops, rp.TruthFigures, rp.TruthNote)
		}
		start, err1 := time.Parse(time.RFC3339Nano, at)
		end, err2 := time.Parse(time.RFC3339Nano, until)
		if err1 != nil || err2 != nil || !start.Equal(r.MeasureStart) || end.Sub(start) != 100*time.Millisecond {
			t.Errorf("window at=%q until=%q; want the measured window from %v, 100ms long", at, until, r.MeasureStart)
		}
	}
}

// TestCoordinatedOmissionClaims decides the shipped file's claims from
// made-up steps: each holds for its own model and fails for the other
// when the two runs' figures are swapped (a claim about one model must
// fail for another).
func TestCoordinatedOmissionClaims(t *testing.T) {
	e, err := Load("../experiments/coordinated-omission.toml")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	truth := []byte(truthJSON(t0, 2*time.Second, 500*time.Millisecond))
	// A closed loop: 10 stalled of 2,410, p90 1 ms; open and rate: 100 of
	// 2,400, p90 300 ms.
	closed := func() *outcome.Point {
		p := &outcome.Point{Clients: 10}
		for i := range 3 {
			rp := outcome.NewRepeat(i+1, stalledResult(t0, 2400, 10, 1), nil)
			addTruth(rp, truth, nil)
			addRepeat(p, rp, e.Load)
		}
		return p
	}
	shows := func(clients int) *outcome.Point {
		p := &outcome.Point{Clients: clients}
		for i := range 3 {
			rp := outcome.NewRepeat(i+1, stalledResult(t0, 2300, 100, 300), nil)
			addTruth(rp, truth, nil)
			addRepeat(p, rp, e.Load)
		}
		return p
	}
	res := func(closedRun, openRun string) *outcome.Result {
		c, o := closed(), shows(400)
		if closedRun == "open" {
			c.Clients, o.Clients = 400, 10
		}
		return &outcome.Result{Interleave: true, Sweeps: true, Runs: []*outcome.Run{
			{Name: closedRun, Points: []*outcome.Point{c}},
			{Name: "per-client rate", Points: []*outcome.Point{shows(10)}},
			{Name: openRun, Points: []*outcome.Point{o}},
		}}
	}
	want := func(r *outcome.Result, outcomes map[string]live.Outcome) {
		t.Helper()
		for _, c := range claim.Evaluate(e.Claims, r, false) {
			if w, ok := outcomes[c.ID]; ok && c.Outcome != w {
				t.Errorf("claim %s = %s; want %s\n%s", c.ID, c.Outcome, w, checksText(c))
			}
		}
	}
	want(res("closed", "open"), map[string]live.Outcome{"closed-hides": live.Reproduced, "open-shows": live.Reproduced, "rate-shows": live.Reproduced})
	want(res("open", "closed"), map[string]live.Outcome{"closed-hides": live.NotReproduced, "open-shows": live.NotReproduced})
}

func checksText(c outcome.Claim) string {
	var b strings.Builder
	for _, k := range c.Checks {
		b.WriteString("  " + k.Text + "\n")
	}
	return b.String()
}

// TestParseTruthErrors checks that a [truth] and the run's own load keys
// are refused, naming the key, when they cannot work.
func TestParseTruthErrors(t *testing.T) {
	base := strings.Replace(claimBase, "clients = [5, 10, 20]", "clients = [10]\nwarmup = \"1s\"", 1)
	base = strings.Replace(base, "at = 10\n", "at = 10\n", 1)
	truth := "\n[truth]\nstart = \"http://127.0.0.1:1/truth/start?at={{window_start}}\"\nstop = \"http://127.0.0.1:1/truth/stop\"\n"
	claimOn := func(o string) string {
		return "\n[[claim]]\nid = \"c1\"\nsource = \"s\"\ntext = \"t\"\n[[claim.check]]\nleft = " + o + "\nop = \"<\"\nright = { value = 1 }\n"
	}
	tests := []struct{ text, want string }{
		{base + "\n[truth]\nstart = \"http://127.0.0.1:1/truth/start\"\nstop = \"http://127.0.0.1:1/truth/stop\"\n", `want {{window_start}} in it`},
		{base + "\n[truth]\nstop = \"http://127.0.0.1:1/truth/stop\"\n", `truth: give both start and stop`},
		{strings.Replace(base, `warmup = "1s"`, `warmup = "0s"`, 1) + truth, `with [truth] want at least 100ms`},
		{base + claimOn(`{ run = "graph 1", clients = 10, truth = "stall_tail_missing" }`), `truth figures need a [truth] section`},
		{base + truth + claimOn(`{ run = "graph 1", clients = 10, truth = "omission" }`), `truth = "omission": want one of`},
		{base + truth + claimOn(`{ run = "graph 1", clients = 10, truth = "served", metric = "p99_ms" }`), `exactly one of metric, reading, profile or truth`},
		{strings.Replace(base, "name = \"graph 1\"\n", "name = \"graph 1\"\nmodel = \"burst\"\n", 1), `run "graph 1": model:`},
		{strings.Replace(base, "name = \"graph 1\"\n", "name = \"graph 1\"\nmodel = \"open\"\n", 1), `run "graph 1": rate = 0: the open model needs a positive rate`},
		{strings.Replace(claimBase, "name = \"graph 1\"\n", "name = \"graph 1\"\nclients = 40\n", 1), `clients = 40 replaces load.clients, which must then name one count (it has 3)`},
		{strings.Replace(base, "name = \"graph 1\"\n", "name = \"graph 1\"\nclients = 40\n", 1) + claimOn(`{ run = "graph 1", clients = 10, metric = "p99_ms" }`), `run "graph 1" is measured at 40 clients only`},
	}
	for _, tt := range tests {
		_, err := parse("x.toml", []byte(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(...%q) = %v; want an error with %q", tt.text[max(0, len(tt.text)-120):], err, tt.want)
		}
	}
	// The same keys, right, parse.
	ok := strings.Replace(base, "name = \"graph 1\"\n", "name = \"graph 1\"\nmodel = \"open\"\nrate = 100\nclients = 40\n", 1) + truth +
		claimOn(`{ run = "graph 1", clients = 40, truth = "stall_tail_missing" }`)
	if _, err := parse("x.toml", []byte(ok)); err != nil {
		t.Errorf("Parse(a run with its own model, rate and clients, [truth] and a truth claim) = %v; want no error", err)
	}
}
