package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest/live"
)

// urlWriter is a command's stdout that hands the first "live: URL" line's
// URL to a channel as soon as it is written.
type urlWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	url  chan string
	sent bool
}

var liveLine = regexp.MustCompile(`(?m)^live: (http://\S+)$`)

func (w *urlWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := liveLine.FindStringSubmatch(w.buf.String()); m != nil && !w.sent {
		w.sent = true
		w.url <- m[1]
	}
	return len(p), nil
}

func (w *urlWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// startLiveCmd runs the command args in the background and returns the
// dashboard URL it printed, and a function that waits for the command's
// exit code, stdout and stderr.
func startLiveCmd(t *testing.T, ctx context.Context, args ...string) (string, func() (int, string, string)) {
	t.Helper()
	out := &urlWriter{url: make(chan string, 1)}
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		err := run(ctx, args, out, &errb)
		done <- cli.Exit(&errb, "loadtest", err)
	}()
	wait := func() (int, string, string) { code := <-done; return code, out.String(), errb.String() }
	select {
	case u := <-out.url:
		return u, wait
	case code := <-done:
		t.Fatalf("%v exited %d before printing the dashboard URL; stdout %s\nstderr %s", args, code, out.String(), errb.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("%v printed no dashboard URL in 30 s", args)
	}
	return "", nil
}

// readEvents reads the dashboard's frames from its event stream until the
// frame that says the end.
func readEvents(t *testing.T, ctx context.Context, url string) []live.Frame {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %sevents: %v", url, err)
	}
	defer resp.Body.Close()
	var frames []live.Frame
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var f live.Frame
		if err := json.Unmarshal([]byte(data), &f); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		frames = append(frames, f)
		if f.Done {
			break
		}
	}
	return frames
}

// TestExperimentLiveDashboard runs a small experiment with -live on a free
// port, reads the page's stream while it runs, and checks that each step
// was published as it finished, with per-second frames before it and the
// end after, and that the report's index.html is the same page with the
// same frames inlined and the report's sections below.
func TestExperimentLiveDashboard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "x.toml")
	text := fmt.Sprintf(`name = "livex"
[server]
command = [%q, "-test.run=^TestPageServerProcess$", "--", "-addr", "127.0.0.1:{{port}}"]
env = ["PAGE_SERVER=1"]
ready = "http://127.0.0.1:{{port}}/readyz"
start_timeout = "10s"
[load]
clients = [1, 2]
think = "5ms"
warmup = "0s"
duration = "2s"
[[load.request]]
url = "http://127.0.0.1:{{port}}/bbs"
expect = 200
[[run]]
name = "a"
[[claim]]
id = "serves"
source = "this test"
text = "run a answers at 2 clients"
[[claim.check]]
left = { run = "a", clients = 2, metric = "throughput" }
op = ">"
right = { value = 0 }
`, os.Args[0])
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, wait := startLiveCmd(t, ctx, "experiment", "-live", "127.0.0.1:0", "-progress", "on", "-out", out, file)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Errorf("dashboard URL %q; want http://127.0.0.1:PORT/", url)
	}
	frames := readEvents(t, ctx, url)
	code, stdout, stderr := wait()
	if code != 0 {
		t.Fatalf("experiment = exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	var steps []live.Step
	seconds := 0
	for _, f := range frames {
		if f.Progress.Experiment != "livex" {
			t.Errorf("frame at t=%v: experiment %q; want livex", f.T, f.Progress.Experiment)
		}
		if f.Step != nil {
			steps = append(steps, *f.Step)
			if len(f.Claims) == 0 && f.Step.Clients == 2 {
				t.Errorf("the step at 2 clients carries no claim; the claim is decidable then")
			}
		} else if f.Client.Throughput > 0 {
			seconds++
			if f.Progress.Run != "a" || f.Progress.Steps != 2 || f.Progress.Clients < 1 {
				t.Errorf("second at t=%v: progress %+v; want run a, 2 steps", f.T, f.Progress)
			}
		}
	}
	if len(steps) != 2 || steps[0].Clients != 1 || steps[1].Clients != 2 || steps[0].Throughput <= 0 || steps[1].Run != "a" {
		t.Errorf("published steps %+v; want run a at 1 then 2 clients, with throughput", steps)
	}
	if seconds < 3 {
		t.Errorf("%d per-second frames with load over two 2 s steps; want one a second", seconds)
	}
	if last := frames[len(frames)-1]; !last.Done || len(last.Claims) != 1 || last.Claims[0].Outcome != live.Reproduced {
		t.Errorf("last frame %+v; want the end with claim serves reproduced", last)
	}
	for _, want := range []string{"limit: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q in the step lines:\n%s", want, stdout)
		}
	}
	// -progress on: a line rewritten with \r, step i of N and time left.
	for _, want := range []string{"\rstep 1/2  a  1 clients", "\rstep 2/2  a  2 clients", "left "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks the progress line's %q:\n%q", want, stderr)
		}
	}

	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script id="frames" type="application/json">(.*?)</script>`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("index.html has no inlined frames")
	}
	var inlined []live.Frame
	if err := json.Unmarshal(m[1], &inlined); err != nil {
		t.Fatalf("index.html's frames: %v", err)
	}
	if len(inlined) != len(frames) {
		t.Errorf("index.html inlines %d frames; the stream had %d", len(inlined), len(frames))
	}
	if bytes.Contains(page, []byte(` src="`)) || bytes.Contains(page, []byte(`<link `)) {
		t.Errorf("index.html refers to another file for its page")
	}
	// The report's sections follow the dashboard's panels, claims first.
	panels, appendix := bytes.Index(page, []byte(`<main id="panels">`)), bytes.Index(page, []byte(`<section id="appendix">`))
	claims, verdict := bytes.Index(page, []byte("<h2>Claims</h2>")), bytes.Index(page, []byte("<h2>Verdict</h2>"))
	if panels < 0 || appendix < panels || claims < appendix || verdict < claims || !bytes.Contains(page, []byte("serves: reproduced")) {
		t.Errorf("index.html: panels at %d, sections at %d, claims at %d, verdict at %d; want the dashboard, then the report's sections, claims first",
			panels, appendix, claims, verdict)
	}
}

// TestSweepLiveDashboard checks sweep -live: a frame a second with the
// step i of N set, a step frame per client count, the end; and that a
// dashboard address other machines could reach is refused.
func TestSweepLiveDashboard(t *testing.T) {
	t.Parallel()
	srv := statsServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, wait := startLiveCmd(t, ctx, "sweep", "-url", srv.URL+"/", "-clients", "1,2", "-duration", "2s", "-think", "5ms",
		"-server-stats", srv.URL+"/admin/stats", "-charts", "", "-progress", "off", "-live", "127.0.0.1:0")
	frames := readEvents(t, ctx, url)
	if code, stdout, stderr := wait(); code != 0 {
		t.Fatalf("sweep = exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	var steps []int
	server := 0
	var peak float64
	var requests int64
	for _, f := range frames {
		if f.Step != nil {
			steps = append(steps, f.Step.Clients)
			peak, requests = max(peak, f.Step.Throughput), requests+f.Step.Requests
			continue
		}
		if f.Done {
			continue
		}
		if f.Progress.Steps != 2 || f.Progress.Clients != f.Progress.Step {
			t.Errorf("frame at t=%v: progress %+v; want step i of 2 at i clients", f.T, f.Progress)
		}
		for _, s := range f.Server {
			if s.Name == "process" && s.Value == 75 && s.Panel != "" {
				server++
			}
		}
	}
	if len(steps) != 2 || steps[0] != 1 || steps[1] != 2 {
		t.Errorf("step frames at %v clients; want 1 then 2", steps)
	}
	if server == 0 {
		t.Errorf("no frame drew the server's CPU (75 %% of a core) on its panel")
	}
	end := frames[len(frames)-1]
	if !end.Done {
		t.Errorf("the stream did not end with the end frame")
	}
	// The finished page heads with the sweep's own figures, not the empty
	// second after the load.
	if s := end.Summary; s == nil || s.Steps != 2 || s.Peak == nil || s.Peak.Throughput != peak || peak <= 0 || s.Requests != requests || requests == 0 {
		t.Errorf("end frame's summary %+v; want 2 steps, the peak %.1f req/s and %d requests", s, peak, requests)
	}
	code, _, stderr := runCmd(context.Background(), "run", "-url", srv.URL+"/", "-duration", "1s", "-live", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "not loopback") {
		t.Errorf("run -live 0.0.0.0:0 = exit %d, %q; want exit 2: the dashboard has no authentication", code, stderr)
	}
}
