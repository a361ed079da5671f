package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest/outcome"
)

// TestPageServerProcess is not a test: run as a child process with
// PAGE_SERVER set, it serves a page on /bbs and 200 on /readyz at the
// -addr given after "--" until it gets SIGTERM.
func TestPageServerProcess(t *testing.T) {
	if os.Getenv("PAGE_SERVER") == "" {
		t.Skip("helper process for the experiment command test")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	fs := flag.NewFlagSet("page", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "")
	if err := fs.Parse(args); err != nil {
		os.Exit(2)
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>post-1</html>") }))
	time.Sleep(2 * time.Minute)
	os.Exit(0)
}

func TestExperimentCommandQuickWithClaims(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "x.toml")
	text := fmt.Sprintf(`name = "x"
[server]
command = [%q, "-test.run=^TestPageServerProcess$", "--", "-addr", "127.0.0.1:{{port}}"]
env = ["PAGE_SERVER=1"]
ready = "http://127.0.0.1:{{port}}/readyz"
start_timeout = "10s"
[load]
clients = [1, 2, 3, 4]
think = "5ms"
duration = "10s"
repeats = 3
interleave = true
[disturbance]
off = true # the repeats as planned: no re-measure of a busy machine's
[[load.request]]
label = "page"
url = "http://127.0.0.1:{{port}}/bbs"
expect = 200
[[run]]
name = "a"
[[run]]
name = "b"
[[claim]]
id = "serves"
source = "this test"
text = "run a answers at 2 clients"
[[claim.check]]
left = { run = "a", clients = 2, metric = "throughput", label = "page" }
op = ">"
right = { value = 0 }
[[claim]]
id = "impossible"
source = "this test"
text = "run b answers a million pages a second"
[[claim.check]]
left = { run = "b", at = "peak", metric = "throughput" }
op = ">="
right = { value = 1e6 }
`, os.Args[0])
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code, stdout, stderr := runCmd(ctx, "experiment", "-quick", "-repeats", "2", "-duration", "100ms", "-out", out, file)
	if code != 0 {
		t.Fatalf("experiment = exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"QUICK RUN", "claims:", "claim serves: REPRODUCED (quick: single measurement, no spread)", "claim impossible: NOT REPRODUCED"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "experiment.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res outcome.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	// It reads back whole: encoded again, it is the same bytes.
	if again, err := json.MarshalIndent(&res, "", "  "); err != nil || string(again)+"\n" != string(b) {
		t.Errorf("experiment.json does not read back as written (%v)", err)
	}
	if !res.Quick || res.Repeats != 2 || len(res.Claims) != 2 || len(res.Runs) != 2 {
		t.Fatalf("result: quick %v, repeats %d, %d claims, %d runs; want quick, 2 repeats (-repeats wins), 2 claims, 2 runs", res.Quick, res.Repeats, len(res.Claims), len(res.Runs))
	}
	var clients []int
	for _, p := range res.Runs[0].Points {
		clients = append(clients, p.Clients)
		if len(p.Repeats) != 2 {
			t.Errorf("a at %d clients: %d repeats; want 2", p.Clients, len(p.Repeats))
		}
	}
	// The claim names 2 clients; the last and the first fill up to 3.
	if want := []int{1, 2, 4}; !slices.Equal(clients, want) {
		t.Errorf("quick client counts %v; want %v", clients, want)
	}
	page, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if i, j := strings.Index(string(page), "<h2>Claims</h2>"), strings.Index(string(page), "<h2>Verdict</h2>"); i < 0 || j < i || !strings.Contains(string(page), "impossible: not reproduced") {
		t.Errorf("index.html does not open with the claims")
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if i, j := strings.Index(string(md), "## Claims"), strings.Index(string(md), "## Verdict"); i < 0 || j < i || !strings.Contains(string(md), "**QUICK RUN") {
		t.Errorf("report.md does not open with the quick notice and the claims:\n%s", md)
	}
}

func TestExperimentRepeatsFlagChecked(t *testing.T) {
	code, _, stderr := runCmd(context.Background(), "experiment", "-repeats", "21", "../../loadtest/experiments/article.toml")
	if code != 2 || !strings.Contains(stderr, "-repeats 21: want 1..20") {
		t.Errorf("-repeats 21 = exit %d, %q; want exit 2 naming the range", code, stderr)
	}
}

// pageExperiment writes an experiment file serving TestPageServerProcess's
// page, with load settings given as TOML lines, and returns its path.
func pageExperiment(t *testing.T, dir, load string) string {
	t.Helper()
	file := filepath.Join(dir, "x.toml")
	text := fmt.Sprintf(`name = "x"
[server]
command = [%q, "-test.run=^TestPageServerProcess$", "--", "-addr", "127.0.0.1:{{port}}"]
env = ["PAGE_SERVER=1"]
ready = "http://127.0.0.1:{{port}}/readyz"
start_timeout = "10s"
[load]
%s
[[load.request]]
label = "page"
url = "http://127.0.0.1:{{port}}/bbs"
expect = 200
[[run]]
name = "a"
`, os.Args[0], load)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestExperimentFailingSLOExits3(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := pageExperiment(t, dir, "clients = [1]\nthink = \"5ms\"\nduration = \"100ms\"\nslo = \"p50<1us\"")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCmd(context.Background(), "experiment", "-out", out, file)
	if code != cli.ExitSLO || !strings.Contains(stderr, "SLO failed") {
		t.Errorf("experiment with a failing SLO = exit %d, stderr %q; want %d\n%s", code, stderr, cli.ExitSLO, stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
		t.Errorf("no report written: %v", err)
	}
	// The same experiment with an objective it meets exits 0.
	file = pageExperiment(t, dir, "clients = [1]\nthink = \"5ms\"\nduration = \"100ms\"\nslo = \"p50<10s\"")
	if code, stdout, stderr := runCmd(context.Background(), "experiment", "-out", filepath.Join(dir, "out2"), file); code != 0 {
		t.Errorf("experiment with a met SLO = exit %d, stderr %q\n%s", code, stderr, stdout)
	}
}

// TestExperimentPinFlag checks that -pin=false reaches the runner: the
// server of a file that names one CPU for it is capped with GOMAXPROCS=1
// instead, and the output says so.
func TestExperimentPinFlag(t *testing.T) {
	// Not parallel: unpinned, the experiment caps this whole process's
	// GOMAXPROCS while it runs.
	dir := t.TempDir()
	file := pageExperiment(t, dir, "clients = [1]\nthink = \"5ms\"\nduration = \"100ms\"")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "start_timeout = \"10s\"", "start_timeout = \"10s\"\ncpus = [0]", 1) + "[client]\ncpus = [0]\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(context.Background(), "experiment", "-pin=false", "-live", "off", "-out", filepath.Join(dir, "out"), file)
	if code != 0 {
		t.Fatalf("experiment -pin=false = exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"server not pinned (pinning is off): GOMAXPROCS=1 in its environment", "load generator not pinned (pinning is off): GOMAXPROCS=1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("experiment -pin=false: stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// cancelOn cancels when what is written to it contains want; the
// experiment's log goes to it.
type cancelOn struct {
	mu     sync.Mutex
	b      strings.Builder
	want   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	if strings.Contains(c.b.String(), c.want) {
		c.cancel()
	}
	return len(p), nil
}

func TestInterruptedExperimentExits130WithItsReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := pageExperiment(t, dir, "clients = [1, 2]\nthink = \"5ms\"\nduration = \"400ms\"")
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupt once the first step (1 client) is logged: the second is
	// cut short or never starts.
	log := &cancelOn{want: "run a: 1 clients:", cancel: cancel}
	var errb strings.Builder
	code := cli.Exit(&errb, "loadtest", run(ctx, []string{"experiment", "-out", out, file}, log, &errb))
	if code != cli.ExitInterrupted {
		t.Fatalf("interrupted experiment = exit %d, stderr %q; want %d\n%s", code, errb.String(), cli.ExitInterrupted, log.b.String())
	}
	if !strings.Contains(log.b.String(), "interrupted: the report of the completed steps is in "+out) {
		t.Errorf("stdout does not say where the report is:\n%s", log.b.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "experiment.json"))
	if err != nil {
		t.Fatalf("interrupted experiment wrote no result: %v", err)
	}
	var res outcome.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 1 || len(res.Runs[0].Points) == 0 || res.Runs[0].Points[0].Clients != 1 ||
		res.Runs[0].Points[0].Result.Interrupted || res.Runs[0].Points[0].Result.Total.Successes == 0 {
		t.Errorf("experiment.json does not hold the completed 1-client step: %s", b)
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
		t.Errorf("no report written: %v", err)
	}
}
