package grade_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/bbs"
	"bbslab/behave"
	"bbslab/entity"
	"bbslab/entity/open"
	"bbslab/internal/testenv"
	"bbslab/loadtest"
	"bbslab/loadtest/grade"
	"bbslab/truth"
)

// TestGradeRealTools grades two real tools against the real board's
// truth: the lab's engine in its open model (in process) and wrk (the
// Debian binary), each in its own truth window over a board that stalls
// 500 ms every 2 s. It asserts what holds by construction, whatever the
// machine's speed: both tools' counts agree with the server's, and no
// percentile of theirs is below the server's; and the open model's tail
// holds the stalls' requests the server's log holds (it sends on its
// schedule); wrk's latency row is labelled as its corrected samples.
// Timing thresholds are not asserted (a busy machine moves them).
func TestGradeRealTools(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs a real board and wrk for about 10 s")
	}
	wrk, err := exec.LookPath("wrk")
	testenv.Need(t, err == nil, "wrk is not installed (apt-get install wrk): skipping the real-tools grade")

	pub, adm := startBoard(t)
	url := pub + "/bbs?cmd=AllView&n=5"
	dir := t.TempDir()

	// The lab's engine, open model, 200 arrivals/s for 4 s.
	labFile := filepath.Join(dir, "open.json")
	window(t, adm, func() {
		s := loadtest.Settings{Requests: []loadtest.Request{{URL: url}}, Model: loadtest.ModelOpen, Rate: 200,
			Clients: 200, Duration: 4 * time.Second, Timeout: 5 * time.Second, Seed: 1}
		res, err := loadtest.Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.WriteJSON(labFile); err != nil {
			t.Fatal(err)
		}
	})
	out := gradeFile(t, adm, labFile)
	want(t, out, "PASS        counts agree", "PASS        no percentile below the server's")
	// The open model sends on its schedule: what the server held long, it
	// has in its tail ("+0.0 %" when they agree to the request; allow
	// the histogram's rounding).
	if !strings.Contains(out, "the stalls' requests: the server's log has") {
		t.Errorf("open model: no count of the stalls' requests from the server's log:\n%s", out)
	}

	// wrk, 2 connections for 4 s, its --latency summary.
	wrkFile := filepath.Join(dir, "wrk.txt")
	window(t, adm, func() {
		b, err := exec.Command(wrk, "-t1", "-c2", "-d4s", "--latency", url).Output()
		if err != nil {
			t.Fatalf("wrk: %v", err)
		}
		os.WriteFile(wrkFile, b, 0o644)
	})
	out = gradeFile(t, adm, wrkFile)
	want(t, out, "PASS        counts agree", "PASS        no percentile below the server's")
	// wrk's figures are of its corrected samples, and said so.
	want(t, out, "tool, corrected", "src/stats.c stats_correct", "Little's law: 2 connections")
}

// startBoard serves the real board (SQLite in a temp dir) with a stall of
// 500 ms every 2 s and the truth hooked into its listener, as cmd/bbs
// does; it returns the public and admin base URLs.
func startBoard(t *testing.T) (pub, adm string) {
	t.Helper()
	st, err := open.Store(context.Background(), entity.Options{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "bbs.db"), Pool: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	beh := behave.New(behave.Settings{StallEvery: 2 * time.Second, StallFor: 500 * time.Millisecond})
	rec := truth.New(0)
	s := bbs.New(bbs.Options{Store: st, DBName: "sqlite", Workers: 4, Queue: 100, QueueTimeout: 5 * time.Second, Behaviour: beh, Truth: rec})
	s.SetReady(true)
	serve := func(h http.Handler, wrap func(net.Listener) net.Listener) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: h, ConnContext: truth.ConnContext}
		go srv.Serve(wrap(l))
		t.Cleanup(func() { srv.Close() })
		return "http://" + l.Addr().String()
	}
	pub = serve(s.Handler(), func(l net.Listener) net.Listener { return truth.Listener(l, rec) })
	adm = serve(s.AdminHandler(), func(l net.Listener) net.Listener { return l })
	return pub, adm
}

// window runs f inside a truth window (with its per-request log).
func window(t *testing.T, adm string, f func()) {
	t.Helper()
	for _, path := range []string{"/admin/truth/start?log=1", ""} {
		if path == "" {
			f()
			path = "/admin/truth/stop"
		}
		resp, err := http.Post(adm+path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %s", path, resp.Status)
		}
	}
}

// gradeFile grades file against the board's truth and returns the output;
// a failing check is not an error here (the caller asserts the verdicts).
func gradeFile(t *testing.T, adm, file string) string {
	t.Helper()
	var out bytes.Buffer
	if err := grade.Run(context.Background(), grade.Options{Server: adm}, []string{file}, &out); err != nil && !strings.Contains(err.Error(), "a check failed") {
		t.Fatalf("grade %s: %v\n%s", file, err, out.String())
	}
	if testing.Verbose() {
		t.Log(out.String())
	}
	return out.String()
}

func want(t *testing.T, out string, verdicts ...string) {
	t.Helper()
	for _, v := range verdicts {
		if !strings.Contains(out, v) {
			t.Errorf("grade lacks %q:\n%s", v, out)
		}
	}
}
