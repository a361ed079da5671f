package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/loadtest/tune"
	"bbslab/loadtest/watch"
)

func TestTuneUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
		live bool // a flag of tune's only
	}{
		{[]string{"-live", "127.0.0.1:0", "-duration", "1s"}, "-duration 2s or more", true},
		{[]string{"-bogus"}, "-bogus", false},
		{[]string{"-slo", "p99=10ms"}, "-slo", false},
		{[]string{"-start", "5"}, `-start "5"`, false},
		{[]string{"-start", "0/5"}, "WORKERS/POOL", false},
		{[]string{"-admin", "127.0.0.1:6060"}, `-admin "127.0.0.1:6060"`, false},
		{[]string{"-clients", "0"}, "clients 0", false},
		{[]string{"extra"}, `unexpected argument "extra"`, false},
	} {
		for _, cmd := range []string{"tune", "tunebench"} {
			if cmd == "tunebench" && tt.live {
				continue
			}
			args := append([]string{cmd}, tt.args...)
			code, _, stderr := runCmd(context.Background(), args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("run(%q) = exit %d, stderr %q; want exit 2 naming %q", args, code, stderr, tt.want)
			}
		}
	}
	for _, tt := range [][2]string{{"-grid-seed", "x"}, {"-side-by-side", "21"}, {"-within", "0"}, {"-within", "1.5"}} {
		want := tt[0]
		if tt[1] != "x" {
			want = strings.TrimPrefix(tt[0], "-") + " " + tt[1]
		}
		if code, _, stderr := runCmd(context.Background(), "tunebench", tt[0], tt[1]); code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("tunebench %s %s = exit %d, %q; want exit 2 naming %q", tt[0], tt[1], code, stderr, want)
		}
	}
}

// TestTuneRealBoard tunes the real board (cmd/bbs as a child, 5 workers
// and 5 connections, each statement 1 ms away) at 20 clients with short
// measurements and a budget of 4 steps, and checks what the command
// promises whatever the machine's figures: a line per step with the
// setting, throughput, p99, the limit with its reading and the decision;
// the first step's limit named from the board's readings (the workers or
// the pool when the CPU has room, the capacity when not, disturbed when
// other work took the board's cores); a JSON with
// every step's evidence, the winner among the steps and the rules
// checked; and the board left at the winner (GET /admin/knobs). Under
// -short it skips: the loop runs against a model of a target and a
// running fake in loadtest/tune, and Board.Tuning on the real handler in
// loadtest/contract.
func TestTuneRealBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("tuning the board binary: about 30 s; runs without -short")
	}
	board, admin := startBoard(t, "-workers", "5", "-pool", "5", "-db-latency", "1ms", "-seed-posts", "200")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "tune.json")
	code, stdout, stderr := runCmd(ctx, "tune", "-url", board+"?cmd=AllView", "-admin", admin, "-clients", "20", "-slo", "p99<50ms",
		"-start", "5/5", "-budget", "4", "-repeats", "2", "-warmup", "300ms", "-duration", "1s", "-max-workers", "40", "-max-pool", "40",
		"-check-min-max", "-out", out)
	if code != 0 && code != 3 {
		t.Fatalf("tune = exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	t.Logf("stdout:\n%s", stdout)
	line := regexp.MustCompile(`(?m)^step (\d): (\d+)/(\d+): \d+/s \(\d+-\d+\), p99 [\d.]+ ms \([\d.]+-[\d.]+\), (meets|misses) the objectives; limit: ([a-z ]+) \((.*)\); .*; best (\d+/\d+|none yet); next: .+$`)
	steps := line.FindAllStringSubmatch(stdout, -1)
	if len(steps) < 1 || len(steps) > 3 || steps[0][2] != "5" || steps[0][3] != "5" {
		t.Fatalf("step lines %q; want 1 to 3 (a budget of 4 keeps one for min = max), the first at 5/5", steps)
	}
	for _, want := range []string{"winner: ", "rule workers = pool + a few: ", "rule min = max: ", "the target keeps running with ", "stopped: ", "wrote " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res tune.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) != len(steps) || res.Work != "AllView" || res.Rules.WorkersPool == "" || res.Rules.MinMaxStep == nil {
		t.Errorf("JSON: %d steps (stdout %d), work %q, rules %+v; want every step, AllView, both rules checked", len(res.Steps), len(steps), res.Work, res.Rules)
	}
	first := res.Steps[0]
	if first.Diagnosis.Evidence == "" || first.Readings.WorkersBusy <= 0 || first.Readings.Queries < 0.8 || first.Readings.Queries > 1.2 || first.Readings.DatabaseMs < 1 {
		t.Errorf("step 1 readings %+v, evidence %q: want workers busy, about 1 query and at least the 1 ms wait in the database per request", first.Readings, first.Diagnosis.Evidence)
	}
	// On a shared machine other work may take the board's cores: the
	// tuner then names the step disturbed and measures it again.
	switch first.Diagnosis.Limit {
	case tune.Workers, tune.Pool, tune.Capacity, tune.Load:
	case tune.Disturbed:
		if len(res.Steps) > 1 && res.Steps[1].Knobs != first.Knobs {
			t.Errorf("step 1 was disturbed but step 2 measured %+v, not 5/5 again", res.Steps[1].Knobs)
		}
	default:
		t.Errorf("step 1 limit %s (%s); want the workers, the pool, the capacity, the load, or disturbed", first.Diagnosis.Limit, first.Diagnosis.Evidence)
	}
	var in struct {
		Workers int `json:"workers"`
		Pool    int `json:"pool"`
		PoolMin int `json:"pool_min"`
	}
	resp, err := http.Get(admin + "/admin/knobs")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&in)
	resp.Body.Close()
	if (watch.Knobs{Workers: in.Workers, Pool: in.Pool}) != res.Winner || in.PoolMin != in.Pool {
		t.Errorf("the board has %+v in force after tuning; want the winner %+v with min = max", in, res.Winner)
	}
}

// knobsBoard serves a page, an empty stats JSON and /admin/knobs as the
// board answers it, its knobs taking effect at once.
func knobsBoard(t *testing.T) string {
	t.Helper()
	var mu sync.Mutex
	w, p := 5, 5
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/admin/stats":
			rw.Write([]byte(`{}`))
		case "/admin/knobs":
			mu.Lock()
			defer mu.Unlock()
			if r.Method == http.MethodPost {
				w, _ = strconv.Atoi(r.FormValue("workers"))
				p, _ = strconv.Atoi(r.FormValue("pool"))
			}
			fmt.Fprintf(rw, `{"workers":%d,"pool":%d,"pool_min":%d,"effective_at":"2026-12-03T00:00:00Z","pending":[]}`, w, p, p)
		default:
			rw.Write([]byte("<html>ok</html>"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestTuneInterruptedExits130 interrupts a tuning during its first
// measurement, as the workshop's time cap does: the command must end at
// once with exit 130.
func TestTuneInterruptedExits130(t *testing.T) {
	t.Parallel()
	u := knobsBoard(t)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	code, stdout, stderr := runCmd(ctx, "tune", "-url", u+"/bbs", "-admin", u, "-duration", "10s", "-warmup", "0s", "-clients", "2", "-think", "10ms")
	if code != 130 || time.Since(t0) > 5*time.Second {
		t.Errorf("tune interrupted = exit %d after %v; want 130 at once\nstdout %s\nstderr %s", code, time.Since(t0), stdout, stderr)
	}
}

// TestExperimentTuneOnRealBoard runs an experiment file with [tune] on the
// real board binary: two runs (AllView and OnceGetView), each tuned from
// 5/5 with a budget of 2 short steps; the log has the tuner's lines, the
// report its Tuning section, experiment.json every tuning, and the claim
// that OnceGetView names the application is decided from it.
func TestExperimentTuneOnRealBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("two tunings of the board binary: about 20 s; runs without -short")
	}
	bin := boardBinary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "t.toml")
	text := fmt.Sprintf(`name = "t"
[server]
command = [%q, "-addr", "127.0.0.1:{{port}}", "-admin-addr", "127.0.0.1:{{admin_port}}", "-dsn", "{{dir}}/bbs.db", "-seed-posts", "200", "-db-latency", "1ms", "-workers", "5", "-pool", "5"]
ready = "http://127.0.0.1:{{admin_port}}/readyz"
reset = "http://127.0.0.1:{{admin_port}}/admin/reset?posts=200"
[stats]
url = "http://127.0.0.1:{{admin_port}}/admin/stats"
[load]
clients = [10]
warmup = "300ms"
duration = "2s"
[[load.request]]
url = "http://127.0.0.1:{{port}}/bbs?cmd={{cmd}}"
expect = 200
[tune]
admin = "http://127.0.0.1:{{admin_port}}"
slo = "p99<200ms"
starts = ["5/5"]
budget = 2
side_by_side = 2
[[run]]
name = "AllView"
vars = { cmd = "AllView" }
[[run]]
name = "OnceGetView"
vars = { cmd = "OnceGetView" }
[[claim]]
id = "app"
source = "this test"
text = "OnceGetView is the application's"
[[claim.check]]
left = { run = "OnceGetView", tune = "5/5", metric = "application" }
op = ">="
right = { value = 1 }
`, bin)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, stdout, stderr := runCmd(ctx, "experiment", "-pin=false", "-live", "off", "-progress", "off", "-out", out, file)
	if code != 0 && code != 3 {
		t.Fatalf("experiment = exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"run AllView: tuning from 5/5", "run OnceGetView: tuning from 5/5", "step 1: 5/5: ", "claim app: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the log lacks %q:\n%s", want, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "## Tuning") || !strings.Contains(string(md), "### OnceGetView from 5/5") {
		t.Errorf("report.md (%v) lacks the Tuning section:\n%s", err, md)
	}
	b, err := os.ReadFile(filepath.Join(out, "experiment.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Tunes []struct {
			Run, Start string
			Result     *tune.Result
			StartSide  *tune.Measurement `json:"start_side_by_side"`
			WinnerSide *tune.Measurement `json:"winner_side_by_side"`
		}
		Claims []struct{ ID, Outcome string }
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Tunes) != 2 || res.Tunes[0].Result == nil || res.Tunes[1].Result == nil || len(res.Tunes[1].Result.Steps) == 0 {
		t.Fatalf("experiment.json tunes %+v; want both runs tuned", res.Tunes)
	}
	// AllView's start and winner are measured again side by side, in 2
	// rounds, when they differ; with one setting there is nothing to set
	// beside it.
	if all := res.Tunes[0]; all.Result.Winner != all.Result.Start {
		if all.StartSide == nil || all.WinnerSide == nil || all.StartSide.Runs != 2 || all.WinnerSide.Runs != 2 || all.WinnerSide.Knobs != all.Result.Winner ||
			!strings.Contains(stdout, "run AllView: side by side: ") {
			t.Errorf("AllView from 5/5 to %+v: side by side start %+v, winner %+v; want both, 2 runs each, and the log's lines", all.Result.Winner, all.StartSide, all.WinnerSide)
		}
	} else if all.StartSide != nil || all.WinnerSide != nil {
		t.Errorf("AllView stayed at 5/5, yet was measured side by side: %+v", all.StartSide)
	}
	if len(res.Claims) != 1 || res.Claims[0].Outcome != "reproduced" {
		t.Errorf("claims %+v; want app reproduced: OnceGetView's 30 queries per request name the application", res.Claims)
	}
	t.Logf("claim app: %s; OnceGetView stopped: %s; readings %+v", res.Claims[0].Outcome, res.Tunes[1].Result.Stopped, res.Tunes[1].Result.Steps[len(res.Tunes[1].Result.Steps)-1].Readings)
}

// TestExperimentTuneRestartsTheBoard tunes a board whose pool cannot
// change while it runs (pool_mode = "none": a connection per acquire, its
// cap fixed at start, so /admin/knobs answers 409): each step's knobs are
// set by starting the board again, on the same ports, with the command's
// {{workers}} and {{pool}}; every step is marked restarted, measured at
// its knobs, with no request failing.
func TestExperimentTuneRestartsTheBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("a tuning of the board binary with a restart per step: about 15 s; runs without -short")
	}
	bin := boardBinary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "t.toml")
	text := fmt.Sprintf(`name = "t"
[server]
command = [%q, "-addr", "127.0.0.1:{{port}}", "-admin-addr", "127.0.0.1:{{admin_port}}", "-dsn", "{{dir}}/bbs.db", "-seed-posts", "200", "-db-latency", "1ms",
  "-pool-mode", "none", "-workers", "{{workers}}", "-pool", "{{pool}}"]
ready = "http://127.0.0.1:{{admin_port}}/readyz"
reset = "http://127.0.0.1:{{admin_port}}/admin/reset?posts=200"
[stats]
url = "http://127.0.0.1:{{admin_port}}/admin/stats"
[load]
clients = [10]
warmup = "300ms"
duration = "2s"
repeats = 1
[[load.request]]
url = "http://127.0.0.1:{{port}}/bbs?cmd=AllView"
expect = 200
[tune]
admin = "http://127.0.0.1:{{admin_port}}"
slo = "p99<500ms"
starts = ["3/3"]
budget = 2
side_by_side = 1
[[run]]
name = "AllView"
vars = { workers = "5", pool = "5" }
`, bin)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, stdout, stderr := runCmd(ctx, "experiment", "-pin=false", "-live", "off", "-progress", "off", "-out", out, file)
	if code != 0 && code != 3 {
		t.Fatalf("experiment = exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "run AllView: starting the board again with 3/3") || !strings.Contains(stdout, "step 1: 3/3 (set by starting the target again)") {
		t.Errorf("the log does not say the board was started again with 3/3 for step 1:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "experiment.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Tunes []struct{ Result *tune.Result }
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Tunes) != 1 || res.Tunes[0].Result == nil || len(res.Tunes[0].Result.Steps) == 0 {
		t.Fatalf("experiment.json tunes %+v; want the run tuned", res.Tunes)
	}
	steps := res.Tunes[0].Result.Steps
	if steps[0].Knobs != (watch.Knobs{Workers: 3, Pool: 3}) {
		t.Errorf("step 1 measured %+v; want 3/3", steps[0].Knobs)
	}
	for _, st := range steps {
		if !st.Restarted || st.Requests == 0 || st.Readings.ErrorShare != 0 {
			t.Errorf("step %d (%+v): restarted %v, %d requests, %.2f %% errors; want set by a restart and measured without errors", st.N, st.Knobs, st.Restarted, st.Requests, st.Readings.ErrorShare)
		}
	}
	// Once a step's setting, and for each later step once a setting a
	// round (its setting and the best beside it, rotated: odd rounds
	// start with the step's), once more to leave it at the winner when the
	// last set was not, then once a setting for the experiment's one
	// side-by-side round.
	tuning, side, _ := strings.Cut(stdout, "run AllView: measuring ")
	r := res.Tunes[0].Result
	want, last := 1, steps[0].Knobs
	for _, st := range steps[1:] {
		want += st.Runs + st.Beside.Runs
		if last = st.Knobs; st.Runs%2 == 0 {
			last = st.Beside.Knobs
		}
	}
	if last != r.Winner {
		want++
	}
	if n := strings.Count(tuning, "starting the board again with"); n != want {
		t.Errorf("the tuning started the board again %d times for %d steps; want %d:\n%s", n, len(steps), want, stdout)
	}
	if res.Tunes[0].Result.Winner != steps[0].Knobs {
		if n := strings.Count(side, "starting the board again with"); n != 2 {
			t.Errorf("the side-by-side round of 2 settings started the board again %d times; want 2:\n%s", n, stdout)
		}
	}
}
