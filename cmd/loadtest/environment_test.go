package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bbslab/loadtest"
	"bbslab/loadtest/resultfile"
)

// TestReportSaysWhenEnvironmentsDiffer runs against a target whose stats
// name its database, then reports the result with itself (nothing extra)
// and with a copy from "another machine" (a warning on the first line).
func TestReportSaysWhenEnvironmentsDiffer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/admin/stats" {
			w.Write([]byte(`{"database": {"kind": "sqlite", "server_version": "3.46.1"}}`))
			return
		}
		w.Write([]byte("<html>ok</html>"))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	code, _, stderr := runCmd(context.Background(), "run", "-url", srv.URL+"/", "-clients", "1", "-duration", "1200ms",
		"-server-stats", srv.URL+"/admin/stats", "-out", out)
	if code != 0 {
		t.Fatalf("run = exit %d; stderr %s", code, stderr)
	}
	r, err := loadtest.ReadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Environment == nil || r.Environment.Generator == nil || !strings.Contains(string(r.Environment.Server["database"]), `"3.46.1"`) {
		t.Fatalf("result environment %+v; want the generator and the server's database", r.Environment)
	}
	code, stdout, stderr := runCmd(context.Background(), "report", "-charts", "", out, out)
	if code != 0 || strings.Contains(stdout, "WARNING: these results ran in different environments") {
		t.Errorf("report of one result twice = exit %d, stdout %q, stderr %q; want no environment warning", code, stdout, stderr)
	}
	r.Environment.Generator.CPUModel = "Another CPU"
	other := filepath.Join(dir, "other.json")
	if err := r.WriteJSON(other); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCmd(context.Background(), "report", "-charts", "", out, other)
	first, _, _ := strings.Cut(stdout, "\n")
	if code != 0 || !strings.HasPrefix(first, "WARNING: these results ran in different environments") || !strings.Contains(first, "vs Another CPU") {
		t.Errorf("report of results from two machines = exit %d, first line %q, stderr %q; want the warning naming the CPU", code, first, stderr)
	}
}

// TestJTLKeepsItsEnvironment runs with -jtl: the environment is written
// beside the JTL file (JMeter's CSV cannot carry a comment), read back with
// it by report, and a JTL from another machine gets the warning.
func TestJTLKeepsItsEnvironment(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>ok</html>"))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	jtl := filepath.Join(dir, "a.jtl")
	code, _, stderr := runCmd(context.Background(), "run", "-url", srv.URL+"/", "-clients", "1", "-duration", "500ms", "-jtl", jtl)
	if code != 0 {
		t.Fatalf("run -jtl = exit %d; stderr %s", code, stderr)
	}
	r, err := resultfile.ReadJTL(jtl)
	if err != nil {
		t.Fatal(err)
	}
	if r.Environment == nil || r.Environment.Generator == nil || r.Environment.Generator.GoVersion == "" {
		t.Fatalf("ReadJTL(%s).Environment = %+v; want the generator's, from %s", jtl, r.Environment, resultfile.JTLEnvironmentPath(jtl))
	}
	r.Environment.Generator.CPUModel = "Another CPU"
	other := filepath.Join(dir, "b.jtl")
	data, err := os.ReadFile(jtl)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := resultfile.WriteJTLEnvironment(other, r.Environment); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(context.Background(), "report", "-charts", "", jtl, other)
	first, _, _ := strings.Cut(stdout, "\n")
	if code != 0 || !strings.HasPrefix(first, "WARNING: these results ran in different environments") {
		t.Errorf("report of JTLs from two machines = exit %d, first line %q, stderr %q; want the warning", code, first, stderr)
	}
	// A broken environment file is an error naming it, not a silent loss.
	if err := os.WriteFile(resultfile.JTLEnvironmentPath(other), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := resultfile.ReadJTL(other); err == nil || !strings.Contains(err.Error(), "b.jtl.env.json") {
		t.Errorf("ReadJTL with a broken environment file: %v; want an error naming it", err)
	}
}
