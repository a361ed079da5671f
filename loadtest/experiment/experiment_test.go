package experiment

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/claim"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/resultfile"
	"bbslab/loadtest/watch"
)

// tinyExperiment is an experiment against the fake board in a child
// process: two runs, two client counts, a stats reading and a CPU profile.
func tinyExperiment(t *testing.T, mode string) *Experiment {
	t.Helper()
	e, err := parse("tiny.toml", []byte(tinyText(t, mode)))
	if err != nil {
		t.Fatal(err)
	}
	e.Dir = t.TempDir()
	return e
}

// tinyText is tinyExperiment's file.
func tinyText(t *testing.T, mode string) string {
	t.Helper()
	return fmt.Sprintf(`
name = "tiny"
description = "A tiny experiment for the tests."
[server]
command = [%q, "-test.run=^TestFakeBoardProcess$", "--", "-addr", "127.0.0.1:{{port}}", "-admin-addr", "127.0.0.1:{{admin_port}}"]
env = ["FAKE_BOARD_MODE=%s"]
ready = "http://127.0.0.1:{{admin_port}}/readyz"
reset = "http://127.0.0.1:{{admin_port}}/admin/reset?posts=40"
start_timeout = "5s"
cpus = [0]
[client]
cpus = [0]
[load]
clients = [1, 2]
warmup = "200ms"
duration = "1500ms"
think = "5ms"
slo = "p99<5s,p99.999<10s,errors<1%%"
deadlines = ["1ms", "1s"]
[[load.request]]
label = "{{cmd}}"
url = "http://127.0.0.1:{{port}}/bbs?cmd={{cmd}}&n=5"
expect = 200
[validate]
board = "http://127.0.0.1:{{port}}/bbs"
[stats]
url = "http://127.0.0.1:{{admin_port}}/admin/stats"
[[stats.reading]]
name = "busy workers"
path = "workers.busy"
kind = "gauge"
[[stats.reading]]
name = "requests"
path = "commands.AllView.requests"
kind = "counter"
unit = "/s"
[profile]
url = "http://127.0.0.1:{{admin_port}}/debug"
kinds = ["cpu", "fgprof"]
seconds = 1
focus = "fakeBoard"
[[profile.bucket]]
name = "board"
frame = "fakeBoard"
[[run]]
name = "all"
vars = { cmd = "AllView" }
[[run]]
name = "each"
vars = { cmd = "EachGetView" }
`, os.Args[0], mode)
}

func TestExperimentEndToEnd(t *testing.T) {
	t.Parallel() // the fake board's figures and files, nothing judged against the machine (fakeTarget)
	e := tinyExperiment(t, "ok")
	out := t.TempDir()
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, e, Options{Target: fakeTarget, Out: out, Log: &log})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	if len(res.Runs) != 2 || len(res.Runs[0].Points) != 2 || len(res.Runs[1].Points) != 2 {
		t.Fatalf("runs: %+v", res.Runs)
	}
	for _, r := range res.Runs {
		for _, p := range r.Points {
			if p.Result.Total.Successes == 0 || p.Result.Total.Errors != 0 {
				t.Errorf("%s at %d clients: %d successes, %d errors", r.Name, p.Clients, p.Result.Total.Successes, p.Result.Total.Errors)
			}
			if len(p.Within) != 2 || p.Within[1] != 1 || len(p.SLO) != 3 || !p.SLO[0].Pass || p.SLO[1].Warning == "" {
				t.Errorf("%s at %d clients: within %v, SLO %+v; want two shares (all within 1s), three objectives, p99.999 flagged", r.Name, p.Clients, p.Within, p.SLO)
			}
			if _, ok := p.Server["requests"]; !ok {
				t.Errorf("%s at %d clients: no server reading: %v", r.Name, p.Clients, p.Server)
			}
		}
		if len(r.Profiles) != 2 {
			t.Errorf("%s: %d profiles; want cpu and fgprof", r.Name, len(r.Profiles))
		}
		// A profiler costs the server CPU: the profiles come from a step
		// of their own, counted as the measured step's, which has none.
		at := r.Points[1]
		for _, pr := range r.Profiles {
			if pr.Seq != at.Used()[0].Seq || len(at.Result.Profiles) != 0 {
				t.Errorf("%s: profile of seq %d, the step's %d with profiles %s; want the step's seq and no profile in the step", r.Name, pr.Seq, at.Used()[0].Seq, at.Result.Profiles)
			}
		}
		if !strings.Contains(log.String(), "run "+r.Name+": 2 clients profiled in a step of its own") {
			t.Errorf("%s: no profile step in the log", r.Name)
		}
	}
	for _, f := range []string{"index.html", "report.md", "experiment.json",
		"charts/sweep-throughput.svg", "charts/sweep-throughput.png", "charts/sweep-response.svg", "charts/sweep-response.png",
		"charts/reading-1-busy-workers.svg", "charts/reading-2-requests.png",
		"all/sweep.json", "all/server.log", "all/profile-2clients-cpu.pb.gz", "all/profile-2clients-fgprof.pb.gz", "each/sweep.json"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("report file %s: %v", f, err)
		}
	}
	page, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !strings.Contains(string(page), "<svg") || strings.Contains(string(page), "http://") && strings.Contains(string(page), "<script src") {
		t.Errorf("index.html does not inline its charts offline")
	}
	if !strings.Contains(string(page), "<li>1 client: PASS") || strings.Contains(string(page), "1 clients") {
		t.Errorf("index.html's SLO list does not say \"1 client\" as report.md does")
	}
	checkFrames(t, string(page), res)
	// The verdict is computed from the results: it quotes the peak.
	peak := slices.MaxFunc(res.Runs[0].Points, func(a, b *outcome.Point) int { return cmp.Compare(a.Throughput().Median, b.Throughput().Median) })
	want := fmt.Sprintf("all: peak %.0f/s at %d clients", peak.Result.Total.Throughput, peak.Clients)
	if len(res.Verdicts) == 0 || !strings.HasPrefix(res.Verdicts[0], want) {
		t.Errorf("verdicts %q; want the first to start with %q", res.Verdicts, want)
	}
	if !strings.Contains(log.String(), "pinned") {
		t.Errorf("the log does not say whether it pinned CPUs:\n%s", log.String())
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	// The environment: the generator's machine, and the server's objects
	// copied from its stats.
	for _, want := range []string{"## Environment", "- Generator: ", "lab ", "Server (every run): config.mode=ok, database.kind=fake, database.server_version=9.9"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if !strings.Contains(string(page), "<h2>Environment</h2>") || !strings.Contains(string(page), "database.server_version=9.9") {
		t.Errorf("index.html lacks the environment")
	}
	if env := res.Runs[1].Points[1].Result.Environment; env == nil || env.Generator == nil || string(env.Server["database"]) != `{"kind":"fake","server_version":"9.9"}` {
		t.Errorf("a point's environment = %+v; want the generator and the server's database", env)
	}
	for _, want := range []string{"within 1s", "PASS p99<5s", "warning:"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if v := strings.Join(res.Verdicts, "\n"); !strings.Contains(v, "every SLO objective was met") || !strings.Contains(v, "Too few samples") {
		t.Errorf("verdicts do not report the SLO and its sample warning:\n%s", v)
	}
	// experiment.json reads back whole: written again, it is the same bytes.
	b, err := os.ReadFile(filepath.Join(out, "experiment.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back outcome.Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("read experiment.json: %v", err)
	}
	again := filepath.Join(t.TempDir(), "experiment.json")
	if err := outcome.WriteJSON(again, &back); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(again); string(b2) != string(b) || len(back.Runs[0].Profiles) != 2 || back.Runs[0].Profiles[0].ProfileSummary == nil {
		t.Errorf("experiment.json does not read back as written")
	}
	runs, err := resultfile.Read(filepath.Join(out, "all", "sweep.json"))
	if err != nil || len(runs) != 2 {
		t.Errorf("ReadRuns(sweep.json) = %d runs, %v", len(runs), err)
	}
}

func TestExperimentServerNeverReady(t *testing.T) {
	e := tinyExperiment(t, "neverready")
	e.Server.StartTimeout = cli.Duration(time.Second)
	out := t.TempDir()
	res, err := Run(context.Background(), e, Options{Target: fakeTarget, Out: out})
	if err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Fatalf("Run = %v; want a not-ready error", err)
	}
	if !strings.Contains(res.Error, "not ready") {
		t.Errorf("result error %q", res.Error)
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Errorf("no report after a failed start: %v", err)
	}
}

func TestExperimentStopsOnValidation(t *testing.T) {
	e := tinyExperiment(t, "differ")
	res, err := Run(context.Background(), e, Options{Target: fakeTarget, Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "validation") {
		t.Fatalf("Run = %v; want a validation error", err)
	}
	if len(res.Runs) != 1 || len(res.Runs[0].Points) != 0 {
		t.Errorf("a server that failed validation was loaded: %+v", res.Runs)
	}
}

func TestParseExperimentErrors(t *testing.T) {
	base := `name = "x"
[server]
command = ["bbs"]
ready = "http://127.0.0.1:1/readyz"
[load]
clients = [1, 2]
duration = "1s"
[[load.request]]
url = "http://127.0.0.1:1/"
[[run]]
name = "a"
`
	if _, err := parse("ok.toml", []byte(base)); err != nil {
		t.Fatalf("valid experiment: %v", err)
	}
	tests := []struct{ text, want string }{
		{base + "bogus = 1\n", `unknown key "run.bogus"`},
		{strings.Replace(base, "[load]", "[load]\nthinktime = \"1s\"", 1), `unknown key "load.thinktime"`},
		{strings.Replace(base, "clients = [1, 2]", "clients = [0]", 1), "load.clients: 0"},
		{strings.Replace(base, "clients = [1, 2]", "clients = [5, 2]", 1), "increasing"},
		{strings.Replace(base, `duration = "1s"`, `duration = "2h"`, 1), "load.duration"},
		{strings.Replace(base, `duration = "1s"`, `duration = "soon"`, 1), "not a duration"},
		{strings.Replace(base, "[load]", "[load]\nmodel = \"closed\"", 1), "load.model"},
		{strings.Replace(base, "[load]", "[load]\ntimer_slack = \"5s\"", 1), "load.timer_slack"},
		{strings.Replace(base, `name = "a"`, `name = ""`, 1), "run 1: name"},
		{strings.Replace(base, `command = ["bbs"]`, `command = []`, 1), "server.command"},
		{base + "[[run]]\nname = \"a\"\n", "used twice"},
		{base + "[profile]\nkinds = [\"heap\"]\n", "profile.kinds"},
		{base + "[stats]\nenvironment = [\"database.kind\"]\n", `stats.environment 1: "database.kind"`},
	}
	for _, tt := range tests {
		_, err := parse("x.toml", []byte(tt.text))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(...%q) = %v; want an error with %q", tt.text[max(0, len(tt.text)-40):], err, tt.want)
		}
	}
}

// TestShippedExperiments checks that every experiment under experiments/
// parses and validates.
func TestShippedExperiments(t *testing.T) {
	files, err := filepath.Glob("../experiments/*.toml")
	if err != nil {
		t.Fatalf("glob ../experiments/*.toml: %v", err)
	}
	if len(files) == 0 {
		t.Fatal("no ../experiments/*.toml found: the shipped experiments are missing or the test runs from the wrong directory")
	}
	once := map[string]bool{"coldstart.toml": true, "pool-growth.toml": true}
	for _, f := range files {
		e, err := Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		// Every shipped experiment states what it tests, and repeats its
		// points so that its claims can be told from noise; except those
		// whose effect happens once per server start (a cold server, a
		// growing pool), which say so in their descriptions.
		want := 3
		if once[filepath.Base(f)] {
			want = 1
		}
		if len(e.Claims) == 0 || e.Load.Repeats < want {
			t.Errorf("%s: %d claims, repeats = %d; want claims and at least %d repeats", f, len(e.Claims), e.Load.Repeats, want)
		}
	}
}

func TestVerdictsFromResults(t *testing.T) {
	newPoint := func(c int, thr, mean float64, wait float64) *outcome.Point {
		return &outcome.Point{Clients: c, Result: &loadtest.Result{Total: loadtest.Stats{Clients: c, Throughput: thr, MeanMs: mean, P99Ms: 2 * mean}},
			Server: map[string]float64{"pool wait": wait}}
	}
	res := &outcome.Result{
		Stats: []watch.Stat{{Name: "pool wait", Unit: "ms"}},
		Runs: []*outcome.Run{
			{Name: "5/5", Points: []*outcome.Point{newPoint(5, 1000, 5, 0.1), newPoint(10, 1100, 9, 0.2)}},
			{Name: "10/5", Points: []*outcome.Point{newPoint(5, 990, 5, 0.1), newPoint(10, 1080, 9.5, 3.4)}},
			{Name: "10/10", Points: []*outcome.Point{newPoint(5, 1000, 5, 0.1), newPoint(10, 2000, 5, 0.1)}},
		},
	}
	v := strings.Join(claim.Verdicts(res, nil), "\n")
	for _, want := range []string{
		"5/5: peak 1100/s at 10 clients",
		"10/5 and 5/5 are the same within noise: peak 1080/s against 1100/s (-1.8 %; the ranges, widened to ±2 %, overlap)",
		"pool wait rose from 0.20 to 3.40 ms",
		"10/10 beats 5/5: peak 2000/s against 1100/s (+81.8 %; single measurements: beyond the noise floor only)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("verdicts lack %q:\n%s", want, v)
		}
	}
}

// TestExperimentOneStepCharts checks the charts of an experiment with one
// client count (bars by run) and a timeline.
func TestExperimentOneStepCharts(t *testing.T) {
	t.Parallel() // the fake board's figures and files, nothing judged against the machine (fakeTarget)
	e := tinyExperiment(t, "ok")
	e.Load.Clients = []int{2}
	e.Load.Duration = time.Second
	e.Profile = profileSpec{}
	e.Report.Timeline = true
	e.Report.Distribution = true
	e.Load.TimelineRequests = 100
	e.Disk.Command = []string{"sh", "-c", `echo '{"dir": "{{out}}", "n": 3, "stats": [{"op": "fsync", "avg_ns": 2000, "median_ns": 1500, "min_ns": 1000, "max_ns": 9000}], "grade": {"name": "average"}}'`}
	out := t.TempDir()
	// The runner keeps the output raw and shows what Disk makes of it.
	disk := func(raw json.RawMessage) *watch.DiskTable {
		var d struct {
			Dir   string `json:"dir"`
			Grade struct {
				Name string `json:"name"`
			} `json:"grade"`
		}
		if json.Unmarshal(raw, &d) != nil {
			return nil
		}
		return &watch.DiskTable{Caption: d.Dir, Head: []string{"op", "avg"}, Rows: [][]string{{"fsync", "2000"}},
			Verdict: fmt.Sprintf("Disk in %s graded %s.", d.Dir, d.Grade.Name)}
	}
	res, err := Run(context.Background(), e, Options{Target: watch.Target{Validate: validateFake, EnvironmentKeys: fakeEnvironment, Disk: disk}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	var raw struct{ Dir string }
	if json.Unmarshal(res.Disk, &raw) != nil || raw.Dir != out {
		t.Errorf("result disk %s; want the command's output kept raw, {{out}} expanded to %s", res.Disk, out)
	}
	if v := strings.Join(res.Verdicts, "\n"); !strings.Contains(v, "all: the first requests took") {
		t.Errorf("verdicts lack the first requests:\n%s", v)
	}
	if v := strings.Join(res.Verdicts, "\n"); !strings.Contains(v, "Disk in "+out+" graded average.") {
		t.Errorf("verdicts lack the disk benchmark (run in %s):\n%s", out, v)
	}
	if md, _ := os.ReadFile(filepath.Join(out, "report.md")); !strings.Contains(string(md), "| op | avg |\n| --- | --- |\n| fsync | 2000 |") {
		t.Errorf("report.md lacks the disk table:\n%s", md)
	}
	for _, f := range []string{"charts/runs-throughput.svg", "charts/runs-response.png", "charts/sweep-timeline-throughput.svg", "charts/sweep-timeline-p99.png", "charts/distribution.svg", "charts/distribution.png", "charts/sweep-coldstart.svg", "charts/sweep-coldstart-intervals.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("chart %s: %v", f, err)
		}
	}
}

// TestExperimentColdStart checks that a run with start = "listening" loads
// the server as soon as its port is open, without waiting for readiness,
// resetting or validating: the fake server here never reports ready.
func TestExperimentColdStart(t *testing.T) {
	e := tinyExperiment(t, "neverready")
	e.Load.Clients = []int{1}
	e.Load.Duration = 500 * time.Millisecond
	e.Load.Warmup = 0
	e.Profile = profileSpec{}
	e.Runs = e.Runs[:1]
	e.Runs[0].Start = startListening
	var log strings.Builder
	res, err := Run(context.Background(), e, Options{Target: fakeTarget, Out: t.TempDir(), Log: &log})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	if len(res.Runs[0].Points) != 1 || res.Runs[0].Points[0].Result.Total.Successes == 0 {
		t.Errorf("cold run measured nothing: %+v", res.Runs[0].Points)
	}
	if !strings.Contains(log.String(), "cold start") || strings.Contains(log.String(), "validation passed") {
		t.Errorf("log does not show a cold start without validation:\n%s", log.String())
	}
	if _, err := parse("x", []byte(strings.Replace(`name = "x"
[server]
command = ["x"]
ready = "http://127.0.0.1:1/"
[load]
clients = [1]
duration = "1s"
[[load.request]]
url = "http://127.0.0.1:1/"
[[run]]
name = "a"
start = "soon"
`, "\t", "", -1))); err == nil || !strings.Contains(err.Error(), `start = "soon"`) {
		t.Errorf("bad start mode: %v", err)
	}
}

// TestExperimentRelativeOut runs with a relative -out, as the README's
// command does from the repository root: the servers, which run in the
// experiment file's directory, must still find their {{dir}}.
func TestExperimentRelativeOut(t *testing.T) {
	e := tinyExperiment(t, "ok")
	e.Server.Env = append(e.Server.Env, "FAKE_BOARD_DIR={{dir}}")
	e.Load.Clients = []int{1}
	e.Runs = e.Runs[:1]
	e.Profile.URL = ""
	t.Chdir(t.TempDir())
	res, err := Run(context.Background(), e, Options{Target: fakeTarget, Out: filepath.Join("out", "rel")})
	if err != nil {
		t.Fatalf("Run with a relative out: %v (result error %q)", err, res.Error)
	}
	matches, _ := filepath.Glob(filepath.Join("out", "rel", "*", "fake.db"))
	if len(matches) != 1 {
		t.Errorf("the server's {{dir}} file under out/rel: %v; want one (the server got a path relative to another directory)", matches)
	}
}

// TestExperimentInterruptedWhileStarting interrupts while a server is not
// ready yet: the error is the interruption (exit 130 in cmd/loadtest), not
// a server that failed to start.
func TestExperimentInterruptedWhileStarting(t *testing.T) {
	e := tinyExperiment(t, "neverready")
	e.Server.StartTimeout = cli.Duration(time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	_, err := Run(ctx, e, Options{Target: fakeTarget, Out: t.TempDir()})
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "not ready") {
		t.Errorf("Run interrupted while starting = %v; want context.Canceled, not a start failure", err)
	}
}

// checkFrames checks that the report page's last frame heads it with
// the experiment's own figures: the peak over every run's steps, where it
// was, and the requests and errors of every step; and that its frames
// carry the experiment's notes, each once, in order.
func checkFrames(t *testing.T, page string, res *outcome.Result) {
	t.Helper()
	const open = `<script id="frames" type="application/json">`
	i := strings.Index(page, open)
	j := strings.Index(page[max(i, 0):], "</script>")
	if i < 0 || j < 0 {
		t.Fatalf("index.html has no inlined frames")
	}
	var frames []live.Frame
	if err := json.Unmarshal([]byte(page[i+len(open):i+j]), &frames); err != nil {
		t.Fatalf("index.html's frames: %v", err)
	}
	if len(frames) == 0 || frames[len(frames)-1].Summary == nil {
		t.Fatalf("index.html's last frame has no summary: the headline would show the empty second after the load")
	}
	var notes []string
	for _, f := range frames {
		notes = append(notes, f.Notes...)
	}
	if len(res.Notes) == 0 || !slices.Equal(notes, res.Notes) {
		t.Errorf("index.html's frames carry the notes %q; want the experiment's %q", notes, res.Notes)
	}
	s := frames[len(frames)-1].Summary
	var want live.Summary
	for _, r := range res.Runs {
		for _, p := range r.Points {
			tot := p.Result.Total
			want.Steps++
			want.Requests += tot.Requests
			want.Errors += tot.Errors
			if want.Peak == nil || tot.Throughput > want.Peak.Throughput {
				want.Peak = &live.Step{Run: r.Name, Clients: p.Clients, Throughput: tot.Throughput, P99: tot.P99Ms}
			}
		}
	}
	if s.Peak == nil || s.Peak.Throughput <= 0 || s.Peak.Run != want.Peak.Run || s.Peak.Clients != want.Peak.Clients ||
		s.Peak.Throughput != want.Peak.Throughput || s.Peak.P99 != want.Peak.P99 {
		t.Errorf("headline peak %+v; want %+v, the experiment's highest step", s.Peak, want.Peak)
	}
	if s.Steps != want.Steps || s.Requests != want.Requests || s.Requests == 0 || s.Errors != want.Errors || s.Duration <= 0 {
		t.Errorf("headline summary: %d steps, %d requests, %d errors, %v s; want %d, %d, %d and a duration",
			s.Steps, s.Requests, s.Errors, s.Duration, want.Steps, want.Requests, want.Errors)
	}
}

// TestSelectRuns keeps the named runs in the file's order and names a run
// the file lacks.
func TestSelectRuns(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  []string
		err   string
	}{
		{[]string{"b", "a"}, []string{"a", "b"}, ""},
		{[]string{"c", "c"}, []string{"c"}, ""},
		{[]string{"a", "nosuch"}, nil, `no run named "nosuch"`},
	} {
		e := &Experiment{Runs: []runSpec{{Name: "a"}, {Name: "b"}, {Name: "c"}}}
		err := e.SelectRuns(tt.names)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("SelectRuns(%q) = %v; want %q", tt.names, err, tt.err)
			}
			continue
		}
		var got []string
		for _, r := range e.Runs {
			got = append(got, r.Name)
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("SelectRuns(%q) = %v, runs %q; want runs %q", tt.names, err, got, tt.want)
		}
	}
}

// TestRunSettingsOverLoad checks a step's settings: [load]'s, with each
// key a [[run]] sets (any of loadtest.Settings') in their place, the
// defaults of loadtest.Settings filled in, and the run's name, client
// count and expanded requests.
func TestRunSettingsOverLoad(t *testing.T) {
	e, err := parse("x.toml", []byte(`name = "x"
[server]
command = ["bbs"]
ready = "http://127.0.0.1:1/readyz"
[load]
clients = [2]
duration = "1s"
think = "10ms"
think_dev = "5ms"
timer = "uniform"
drain = "3s"
[[load.request]]
url = "http://127.0.0.1:{{port}}/"
[[run]]
name = "a"
timer = "gaussian"
think_dev = "7ms"
rampup = "1s"
max_requests = 50
seed = 9
clients = 4
[[run]]
name = "b"
`))
	if err != nil {
		t.Fatal(err)
	}
	x := func(s string) string { return strings.ReplaceAll(s, "{{port}}", "8080") }
	a, b := e.settings(e.Runs[0], e.Runs[0].Clients, x), e.settings(e.Runs[1], 2, x)
	if a.Name != "a" || a.Clients != 4 || a.TimerKind != loadtest.TimerGaussian || a.ThinkDev != 7*time.Millisecond || a.Think != 10*time.Millisecond ||
		a.Rampup != time.Second || a.MaxRequests != 50 || a.Seed != 9 || a.Drain != 3*time.Second || a.Duration != time.Second {
		t.Errorf("run a's settings = %+v; want gaussian 10ms ± 7ms, ramp-up 1s, 50 requests, seed 9, 4 clients, and load's drain and duration", a)
	}
	if b.Name != "b" || b.Clients != 2 || b.TimerKind != loadtest.TimerUniform || b.ThinkDev != 5*time.Millisecond || b.Rampup != 0 ||
		b.Model != loadtest.ModelDelay || b.Timeout != 10*time.Second || len(b.Requests) != 1 || b.Requests[0].URL != "http://127.0.0.1:8080/" {
		t.Errorf("run b's settings = %+v; want load's: uniform 10ms ± 5ms, delay, timeout 10s (the default), the request at port 8080", b)
	}
	if e.Load.Requests[0].URL != "http://127.0.0.1:{{port}}/" {
		t.Errorf("load.request's URL became %q; want its placeholder kept for the next run", e.Load.Requests[0].URL)
	}

	for _, tc := range []struct{ add, want string }{
		{"[load]\ndrain = \"-1s\"\n", `load.drain = -1s: must not be negative`},
		{"[[run]]\nname = \"c\"\nthink = \"-5ms\"\n", `run "c": think = -5ms: must not be negative`},
		{"[[run]]\nname = \"c\"\ntimer = \"erratic\"\n", `run "c": timer`},
		{"[[run]]\nname = \"c\"\ntimer_slack = \"2s\"\n", `run "c": timer_slack = 2s`},
		{"[[run]]\nname = \"c\"\nstart_at = 1\n", `unknown key "run.start_at"`},
		{"[[run]]\nname = \"c\"\n[[run.request]]\nurl = \"http://127.0.0.1:2/\"\n", `run "c": request: a run loads [load]'s requests`},
	} {
		text := `name = "x"
[server]
command = ["bbs"]
ready = "http://127.0.0.1:1/readyz"
[[load.request]]
url = "http://127.0.0.1:1/"
[[run]]
name = "a"
`
		if strings.HasPrefix(tc.add, "[load]") {
			text = strings.Replace(text, "[[load.request]]", tc.add+"clients = [1]\nduration = \"1s\"\n[[load.request]]", 1)
		} else {
			text = strings.Replace(text, "[[load.request]]", "[load]\nclients = [1]\nduration = \"1s\"\n[[load.request]]", 1) + tc.add
		}
		if _, err := parse("x.toml", []byte(text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parse(... %q) = %v; want an error with %q", tc.add, err, tc.want)
		}
	}
}
