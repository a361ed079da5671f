package main

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"bbslab/internal/browsertest"
)

// The bbs binary, built once per test binary by the first startBoard (a
// link takes seconds) and removed by TestMain.
var (
	boardOnce sync.Once
	boardDir  string
	boardBin  string
	boardErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if boardDir != "" {
		os.RemoveAll(boardDir)
	}
	os.Exit(code)
}

// boardBinary builds cmd/bbs once and returns its path.
func boardBinary(t *testing.T) string {
	t.Helper()
	boardOnce.Do(func() {
		if boardDir, boardErr = os.MkdirTemp("", "loadtest-bbs-"); boardErr != nil {
			return
		}
		boardBin = filepath.Join(boardDir, "bbs")
		if out, err := exec.Command("go", "build", "-o", boardBin, "bbslab/cmd/bbs").CombinedOutput(); err != nil {
			boardErr = fmt.Errorf("build cmd/bbs: %v\n%s", err, out)
		}
	})
	if boardErr != nil {
		t.Fatal(boardErr)
	}
	return boardBin
}

// startBoard builds cmd/bbs (once) and starts it as a child on free ports
// with args, returning the board's page URL (…/bbs) and the admin base URL
// once it has printed them.
func startBoard(t *testing.T, args ...string) (board, admin string) {
	t.Helper()
	bin := boardBinary(t)
	args = append([]string{"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-dsn", filepath.Join(t.TempDir(), "bbs.db")}, args...)
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "board: "); ok {
			board = strings.TrimSuffix(u, "/")
		}
		if u, ok := strings.CutPrefix(sc.Text(), "admin: "); ok {
			admin = strings.TrimSuffix(u, "/")
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if board == "" || admin == "" {
		t.Fatalf("cmd/bbs %v printed no board and admin URLs", args)
	}
	return board, admin
}

// TestRunLiveDashboardInBrowser starts the real board (10 workers, 5
// connections) as a child, loads it with `loadtest run -live` (20 clients
// on EachGetView, a connection per query, for 6 s, its stats polled), opens
// the dashboard in headless Chromium with every request to another origin
// failed and counted, and checks that the page connects, that the
// throughput and latency series gain points second by second, and that
// "what requests are doing now" shows requests waiting for a worker or a
// connection. The screenshot is kept as a test artifact.
func TestRunLiveDashboardInBrowser(t *testing.T) {
	bctx := browsertest.New(t, 1600, 1000) // first: skips before building the board
	board, admin := startBoard(t, "-workers", "10", "-pool", "5", "-seed-posts", "200")
	bctx, cancelB := context.WithTimeout(bctx, 90*time.Second)
	defer cancelB()

	// Every request pauses here: the dashboard's own go on (once the run
	// has printed its URL), others fail and are counted.
	blocked := browsertest.BlockOtherOrigins(t, bctx)

	// The browser is up: start the load now, so that the page sees it
	// from its first second even on a slow machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u, wait := startLiveCmd(t, ctx, "run", "-url", board+"?cmd=EachGetView&n=30", "-clients", "20", "-duration", "6s",
		"-server-stats", admin+"/admin/stats", "-live", "127.0.0.1:0", "-progress", "off")
	defer func() {
		if code, stdout, stderr := wait(); code != 0 {
			t.Errorf("run = exit %d; stderr %s\n%s", code, stderr, stdout)
		}
	}()
	blocked.Allow(u)
	if err := chromedp.Do(bctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("open the dashboard: %v", err)
	}
	type points struct{ T, Throughput, Latency int }
	read := func() points {
		t.Helper()
		p, err := chromedp.Run(bctx, chromedp.Evaluate[points](`(function(){var p = window.dashboard.points(); return {T: p.t, Throughput: p.throughput, Latency: p.latency};})()`))
		if err != nil {
			t.Fatalf("read window.dashboard.points(): %v", err)
		}
		return p
	}
	status := func() string {
		s, err := chromedp.Run(bctx, chromedp.Evaluate[string](`(document.getElementById("status") || {}).textContent || ""`))
		if err != nil {
			t.Fatalf("read the status: %v", err)
		}
		return s
	}
	// Second by second: the points at each new second, and the highest
	// waits the "doing now" area showed.
	var seen []points
	var statuses []string
	maxWait := map[string]float64{}
	for range 120 {
		p := read()
		if len(seen) == 0 || p.T > seen[len(seen)-1].T {
			seen = append(seen, p)
		}
		st := status()
		if len(statuses) == 0 || statuses[len(statuses)-1] != st {
			statuses = append(statuses, st)
		}
		doing, err := chromedp.Run(bctx, chromedp.Evaluate[map[string]float64](`window.dashboard.doing()`))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"waiting for a worker", "waiting for a connection"} {
			maxWait[k] = max(maxWait[k], doing[k])
		}
		if st == "finished" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !slices.Contains(statuses, "connected") && !slices.Contains(statuses, "finished") {
		t.Errorf("status went %v; want connected", statuses)
	}
	grew := 0
	for i := 1; i < len(seen); i++ {
		if seen[i].Throughput > seen[i-1].Throughput && seen[i].Latency > seen[i-1].Latency {
			grew++
		}
	}
	if grew < 3 {
		t.Errorf("points by second %+v; want the throughput and latency series to gain points at 3 seconds or more", seen)
	}
	if maxWait["waiting for a worker"] <= 0 && maxWait["waiting for a connection"] <= 0 {
		t.Errorf("doing now never showed a wait: %v; want waits for a worker or a connection with 20 clients on 10 workers and 5 connections", maxWait)
	}
	t.Logf("seconds seen %d, statuses %v, highest waits %v", len(seen), statuses, maxWait)

	png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.ArtifactDir(), "dashboard-run.png")
	if dir := os.Getenv("BBS_SCREENSHOT_DIR"); dir != "" { // to look at it after the test
		shot = filepath.Join(dir, "dashboard-run.png")
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
	if foreign := blocked.Foreign(); len(foreign) > 0 {
		t.Errorf("the page tried %d requests outside %s: %v", len(foreign), u, foreign)
	}
}

// TestTuneLiveDashboardInBrowser tunes the real board (5 workers, 5
// connections, each statement 1 ms away) from 5/5 with `loadtest tune
// -live`, three short steps, opens the dashboard in headless Chromium and
// checks that the tuning's path through the workers × pool plane is drawn
// (a polyline, a point per step) and that the per-second charts gain
// points. The screenshot is kept as a test artifact (BBS_SCREENSHOT_DIR to
// keep it elsewhere).
func TestTuneLiveDashboardInBrowser(t *testing.T) {
	bctx := browsertest.New(t, 1600, 1400)
	board, admin := startBoard(t, "-workers", "5", "-pool", "5", "-db-latency", "1ms", "-seed-posts", "200")
	bctx, cancelB := context.WithTimeout(bctx, 2*time.Minute)
	defer cancelB()
	blocked := browsertest.BlockOtherOrigins(t, bctx)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u, wait := startLiveCmd(t, ctx, "tune", "-url", board+"?cmd=AllView", "-admin", admin, "-clients", "20", "-slo", "p99<50ms",
		"-start", "5/5", "-budget", "3", "-repeats", "1", "-warmup", "300ms", "-duration", "2s", "-live", "127.0.0.1:0")
	blocked.Allow(u)
	if err := chromedp.Do(bctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("open the dashboard: %v", err)
	}
	type seen struct {
		Points, Lines, T int
		Step, Clients    string
	}
	var last seen
	progress := map[string]bool{} // the progress line's "step" and "clients" as the tuning went
	for range 300 {
		s, err := chromedp.Run(bctx, chromedp.Evaluate[seen](`(function(){var p = window.dashboard.points();
			return {Points: document.querySelectorAll("svg.tune circle").length, Lines: document.querySelectorAll("svg.tune polyline").length, T: p.t,
				Step: document.getElementById("step").textContent, Clients: document.getElementById("clients").textContent};})()`))
		if err != nil {
			t.Fatal(err)
		}
		last = s
		progress[s.Step+", clients "+s.Clients] = true
		st, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`(document.getElementById("status") || {}).textContent || ""`))
		if st == "finished" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	code, stdout, stderr := wait()
	if code != 0 && code != 3 {
		t.Fatalf("tune = exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	steps := strings.Count(stdout, "\nstep ")
	if last.Lines != 1 || last.Points != steps || steps < 1 || last.T < 3 {
		t.Errorf("the page drew %d paths with %d points and %d seconds; want 1 path, a point per step (%d) and the seconds\n%s", last.Lines, last.Points, last.T, steps, stdout)
	}
	// The progress line followed the tuner's steps through the budget.
	if !progress["1 of 3, clients 20"] || !progress[fmt.Sprintf("%d of 3, clients 20", steps)] {
		t.Errorf("the progress line read %v; want step 1 of 3 and step %d of 3, at 20 clients", slices.Sorted(maps.Keys(progress)), steps)
	}
	// The finished headline counts the tuner's steps and their requests.
	type head struct{ Scope, Thr, Req string }
	h, err := chromedp.Run(bctx, chromedp.Evaluate[head](`(function(){var x = function (id) { return document.getElementById(id).textContent; };
		return {Scope: x("scope"), Thr: x("head-thr"), Req: x("head-req")};})()`))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("whole experiment, %d steps", steps); !strings.EqualFold(h.Scope, want) || h.Thr == "–" || h.Req == "0" {
		t.Errorf("the finished headline reads %q, peak %q, %q requests; want %q, a peak and the requests measured", h.Scope, h.Thr, h.Req, want)
	}
	png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.ArtifactDir(), "dashboard-tune.png")
	if dir := os.Getenv("BBS_SCREENSHOT_DIR"); dir != "" {
		shot = filepath.Join(dir, "dashboard-tune.png")
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
	if foreign := blocked.Foreign(); len(foreign) > 0 {
		t.Errorf("the page tried %d requests outside %s: %v", len(foreign), u, foreign)
	}
}
