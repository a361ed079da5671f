package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bbslab/loadtest/resultfile"
	"bbslab/loadtest/watch"
)

// statsServer serves a page and a stats JSON with a constant server CPU.
func statsServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/admin/stats" {
			fmt.Fprint(w, `{"machine": {"process_cpu": {"total": 75}}, "workers": {"queued": 1}}`)
			return
		}
		w.Write([]byte("<html>ok</html>"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSweepWithServerStats(t *testing.T) {
	t.Parallel()
	srv := statsServer(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	code, stdout, stderr := runCmd(context.Background(), "sweep", "-url", srv.URL+"/", "-clients", "1,2", "-duration", "1100ms",
		"-think", "5ms", "-server-stats", srv.URL+"/admin/stats", "-out", out, "-charts", filepath.Join(dir, "c"), "-progress", "off")
	if code != 0 {
		t.Fatalf("sweep = exit %d; stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "server: server_cpu 75 % of a core") || !strings.Contains(stdout, "srv cpu %") {
		t.Errorf("stdout lacks the server line or columns:\n%s", stdout)
	}
	if !strings.Contains(stdout, "c-server-cpu.svg") {
		t.Errorf("no server CPU chart:\n%s", stdout)
	}
	runs, err := resultfile.Read(out)
	if err != nil || len(runs) != 2 {
		t.Fatalf("ReadRuns = %d runs, %v; want 2", len(runs), err)
	}
	for _, r := range runs {
		seen, err := watch.Of(r)
		if v, ok := seen.Server.Value("server_cpu"); !ok || v != 75 {
			t.Errorf("%d clients: server_cpu %v (%v, %v); want 75", r.Total.Clients, v, ok, err)
		}
	}
}

func TestRunTimelineThenReport(t *testing.T) {
	t.Parallel()
	srv := server(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "x.json")
	code, stdout, stderr := runCmd(context.Background(), "run", "-url", srv.URL+"/", "-clients", "1", "-requests", "120",
		"-timeline", "-timeline-n", "80", "-out", out, "-progress", "off")
	if code != 0 {
		t.Fatalf("run = exit %d; stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "timeline: first 80 requests") {
		t.Errorf("stdout lacks the timeline line:\n%s", stdout)
	}
	prefix := filepath.Join(dir, "rep")
	code, stdout, stderr = runCmd(context.Background(), "report", "-charts", prefix, out)
	if code != 0 {
		t.Fatalf("report = exit %d; stderr %s", code, stderr)
	}
	for _, f := range []string{prefix + "-coldstart.svg", prefix + "-coldstart.png"} {
		if _, err := os.Stat(f); err != nil || !strings.Contains(stdout, f) {
			t.Errorf("report did not draw %s: %v\n%s", f, err, stdout)
		}
	}
}

func TestBadProfileKindIsUsageError(t *testing.T) {
	code, _, stderr := runCmd(context.Background(), "run", "-url", "http://h/", "-duration", "1s", "-profile", "http://h/debug", "-profile-kinds", "heap", "-profile-dir", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "heap") {
		t.Errorf("-profile-kinds heap = exit %d, %q; want exit 2 naming heap", code, stderr)
	}
}
