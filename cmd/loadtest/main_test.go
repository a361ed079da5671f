package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/resultfile"
)

// runCmd runs the command line and returns its exit code and output.
func runCmd(ctx context.Context, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	err := run(ctx, args, &out, &errb)
	return cli.Exit(&errb, "loadtest", err), out.String(), errb.String()
}

func server(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>ok</html>"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestUsageErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[[request]]\nurl = \"http://h/\"\nwieght = 2\n"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{}, "no command"},
		{[]string{"nope"}, "unknown command"},
		{[]string{"run", "-bogus"}, "-bogus"},
		{[]string{"run", "-url", "http://h/"}, "-duration or -requests"},
		{[]string{"run", "-url", "ftp://h/", "-duration", "1s"}, "http:// or https://"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-H", "NoColon"}, "want 'Name: value'"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-H", "Content-Length: 4"}, "Content-Length"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-H", "X-A: 1", "-H", "x-a: 2"}, "given twice"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-body", "a", "-form", "b=1"}, "one of -form, -body and -body-file"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-body-file", filepath.Join(dir, "nobody.json")}, "nobody.json"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-method", "HEAD", "-body", "x"}, "HEAD"},
		{[]string{"run", "-scenario", bad, "-duration", "1s", "-H", "X-A: 1"}, "-H and -expect go with -url"},
		{[]string{"run", "-scenario", bad, "-duration", "1s"}, "wieght"},
		{[]string{"run", "-scenario", filepath.Join(dir, "missing.toml"), "-duration", "1s"}, "missing.toml"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-model", "closed"}, "closed"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-slo", "p99<fast"}, "fast"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-clients", "x"}, "-clients"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-timer-slack", "-1ms"}, "negative"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-timer-slack", "2s"}, "timer slack 2s"},
		{[]string{"sweep", "-url", "http://h/", "-duration", "1s", "-clients", "5,x"}, "-clients"},
		{[]string{"sweep", "-url", "http://h/", "-duration", "1s", "-clients", "5", "-timeline-n", "10"}, "-timeline-n needs -timeline"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-drain", "-1s"}, "negative"},
		{[]string{"report"}, "at least one"},
		{[]string{"experiment", "-bogus"}, "-bogus"},
		{[]string{"experiment", "-lang", "jp", "../../loadtest/experiments/article.toml"}, `-lang "jp": want en or ja`},
		{[]string{"experiment", "-clients", "5,0", "../../loadtest/experiments/article.toml"}, "-clients"},
		// Flags may follow the file, as for run, sweep and report.
		{[]string{"experiment", "../../loadtest/experiments/article.toml", "-runs", "nosuch"}, `no run named "nosuch"`},
		{[]string{"report", filepath.Join(dir, "none.json")}, "none.json"},
	}
	for _, tt := range tests {
		code, _, stderr := runCmd(context.Background(), tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("run(%q) = exit %d, stderr %q; want exit 2 naming %q", tt.args, code, stderr, tt.want)
		}
	}
}

func TestRunOutputsAndSLO(t *testing.T) {
	t.Parallel()
	srv := server(t)
	dir := t.TempDir()
	out, jtl, csv := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.jtl"), filepath.Join(dir, "r.csv")
	code, stdout, stderr := runCmd(context.Background(), "run", "-url", srv.URL+"/?m={{seq}}", "-clients", "2", "-requests", "200",
		"-out", out, "-jtl", jtl, "-csv", csv, "-slo", "errors<1%,p50<10s")
	if code != 0 {
		t.Fatalf("run = exit %d; stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "[code:count]") || !strings.Contains(stdout, " 200:200\n") || !strings.Contains(stdout, "SLO PASS errors<1%") {
		t.Errorf("stdout lacks the summary or SLO lines:\n%s", stdout)
	}
	r, err := loadtest.ReadResult(out)
	if err != nil || r.Total.Requests != 200 {
		t.Fatalf("result %v, %v; want 200 requests", r, err)
	}
	for _, p := range []string{jtl, csv} {
		if b, err := os.ReadFile(p); err != nil || len(b) == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	code, stdout, _ = runCmd(context.Background(), "run", "-url", srv.URL, "-clients", "1", "-requests", "50", "-slo", "p50<1us")
	if code != 3 || !strings.Contains(stdout, "SLO FAIL p50<1us") {
		t.Errorf("failing SLO: exit %d, stdout %q; want exit 3 and a FAIL line", code, stdout)
	}

	// report reads the JSON and the JTL together and draws charts.
	prefix := filepath.Join(dir, "rep")
	code, stdout, stderr = runCmd(context.Background(), "report", "-charts", prefix, out, jtl)
	if code != 0 || strings.Count(stdout, "Requests  ") != 2 {
		t.Errorf("report = exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(prefix + "-timeline-throughput.png"); err != nil {
		t.Errorf("report chart: %v", err)
	}
}

func TestInterruptedRunWritesResults(t *testing.T) {
	t.Parallel()
	srv := server(t)
	out := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	code, stdout, _ := runCmd(ctx, "run", "-url", srv.URL, "-clients", "2", "-think", "5ms", "-duration", "1m", "-out", out)
	if code != cli.ExitInterrupted {
		t.Errorf("interrupted run = exit %d; want %d", code, cli.ExitInterrupted)
	}
	r, err := loadtest.ReadResult(out)
	if err != nil {
		t.Fatalf("interrupted run wrote no result: %v", err)
	}
	if !r.Interrupted || r.Total.Requests == 0 || !strings.Contains(stdout, "interrupted") {
		t.Errorf("result interrupted=%v requests=%d; stdout %q", r.Interrupted, r.Total.Requests, stdout)
	}
}

func TestSweepCommand(t *testing.T) {
	t.Parallel()
	srv := server(t)
	dir := t.TempDir()
	prefix := filepath.Join(dir, "sw")
	out := filepath.Join(dir, "sw.json")
	code, stdout, stderr := runCmd(context.Background(), "sweep", "-url", srv.URL, "-clients", "1,2,3", "-model", "rate", "-think", "20ms",
		"-warmup", "100ms", "-duration", "200ms", "-charts", prefix, "-out", out)
	if code != 0 {
		t.Fatalf("sweep = exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "USL: σ = ") || !strings.Contains(stdout, "measured peak") {
		t.Errorf("sweep stdout lacks the USL fit:\n%s", stdout)
	}
	if !strings.Contains(stdout, "== sweep") || !strings.Contains(stdout, "ideal/s") {
		t.Errorf("sweep stdout:\n%s", stdout)
	}
	for _, f := range []string{"-throughput.svg", "-throughput.png", "-response.svg", "-response.png"} {
		if _, err := os.Stat(prefix + f); err != nil {
			t.Errorf("sweep chart: %v", err)
		}
	}
	// The sweep file reports as one curve with two points.
	code, stdout, _ = runCmd(context.Background(), "report", "-charts", filepath.Join(dir, "again"), out)
	if code != 0 || !strings.Contains(stdout, "ideal/s") {
		t.Errorf("report of a sweep = exit %d:\n%s", code, stdout)
	}
}

func TestSweepWritesEachStepsFiles(t *testing.T) {
	t.Parallel()
	srv := server(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "sw.json")
	code, stdout, stderr := runCmd(context.Background(), "sweep", "-url", srv.URL, "-clients", "1,2", "-think", "10ms", "-duration", "300ms",
		"-charts", "", "-out", out, "-csv", filepath.Join(dir, "s.csv"), "-jtl", filepath.Join(dir, "s.jtl"),
		"-cpuprofile", filepath.Join(dir, "s.pprof"), "-timeline", "-timeline-n", "5")
	if code != 0 {
		t.Fatalf("sweep = exit %d: %s\n%s", code, stderr, stdout)
	}
	runs, err := resultfile.Read(out)
	if err != nil || len(runs) != 2 {
		t.Fatalf("sweep file: %d runs, %v; want 2", len(runs), err)
	}
	for i, n := range []int{1, 2} {
		r := runs[i]
		for _, ext := range []string{".csv", ".jtl", ".pprof"} {
			p := filepath.Join(dir, fmt.Sprintf("s-c%d%s", n, ext))
			if st, err := os.Stat(p); err != nil || st.Size() == 0 {
				t.Errorf("step %d clients: %s not written: %v", n, p, err)
			}
		}
		jtl, err := resultfile.ReadJTL(filepath.Join(dir, fmt.Sprintf("s-c%d.jtl", n)))
		if err != nil || jtl.Total.Requests != r.Total.Requests {
			t.Errorf("step %d clients: JTL holds %v requests (%v); the result %d", n, jtl, err, r.Total.Requests)
		}
		csv, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("s-c%d.csv", n)))
		if rows := strings.Count(string(csv), "\n") - 1; rows != len(r.Series) {
			t.Errorf("step %d clients: CSV has %d rows; the series %d", n, rows, len(r.Series))
		}
		if r.Timeline == nil || len(r.Timeline.Requests) != 5 {
			t.Errorf("step %d clients: timeline %v; want the first 5 requests", n, r.Timeline)
		}
	}
}
