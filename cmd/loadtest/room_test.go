package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"bbslab/workshop/room"
)

// TestRoomFlagSendsResults: -room sends what run, sweep and experiment wrote to
// the room; a refusal does not fail the command, says how to send the
// file again, and leaves it in place.
func TestRoomFlagSendsResults(t *testing.T) {
	t.Setenv(room.TokenVar, "")
	t.Setenv(room.NameVar, "laptop-1")
	r, err := room.Open(room.Options{Dir: t.TempDir(), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	rs := httptest.NewServer(r.Handler())
	defer rs.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "run.json")
	code, _, stderr := runCmd(context.Background(), "run", "-url", server(t).URL+"/", "-clients", "1", "-duration", "100ms", "-out", out, "-room", rs.URL, "-room-token", "tok")
	if code != 0 || !strings.Contains(stderr, "room: sent "+out+" as laptop-1") {
		t.Fatalf("run -room = exit %d, stderr %q; want 0 and the file sent", code, stderr)
	}

	sweep := filepath.Join(dir, "sweep.json")
	code, _, stderr = runCmd(context.Background(), "sweep", "-url", server(t).URL+"/", "-clients", "1,2", "-duration", "100ms", "-charts", "", "-out", sweep, "-room", rs.URL, "-room-token", "tok")
	if code != 0 || !strings.Contains(stderr, "room: sent "+sweep) {
		t.Fatalf("sweep -room = exit %d, stderr %q; want 0 and the file sent", code, stderr)
	}

	t.Setenv(room.TokenVar, "tok")
	file := pageExperiment(t, dir, "clients = [1, 2]\nthink = \"5ms\"\nduration = \"100ms\"")
	code, stdout, stderr := runCmd(context.Background(), "experiment", "-live", "off", "-progress", "off", "-out", filepath.Join(dir, "x"), "-room", rs.URL, file)
	if code != 0 || !strings.Contains(stdout, "room: sent "+filepath.Join(dir, "x", "experiment.json")) {
		t.Fatalf("experiment -room = exit %d, stderr %q; want 0 and experiment.json sent\n%s", code, stderr, stdout)
	}
	v := r.View()
	var kinds []string
	for _, f := range v.Laptops[0].Files {
		kinds = append(kinds, f.Kind+" "+f.Name)
	}
	if len(v.Laptops) != 1 || !slices.Equal(kinds, []string{"run ", "sweep ", "experiment x"}) || len(v.Curves) != 3 {
		t.Errorf("the room holds %+v; want laptop-1's run, sweep and experiment x, each a curve", v)
	}

	code, _, stderr = runCmd(context.Background(), "run", "-url", server(t).URL+"/", "-clients", "1", "-duration", "100ms", "-out", out, "-room", rs.URL, "-room-token", "guess")
	if code != 0 || !strings.Contains(stderr, "wrong token") || !strings.Contains(stderr, "-send "+out+" -to "+rs.URL) {
		t.Errorf("run -room with a wrong token = exit %d, stderr %q; want 0, the refusal and how to send again", code, stderr)
	}
	if _, err := os.Stat(out); err != nil || r.Uploads() != 3 {
		t.Errorf("after the refusal: %v, %d uploads; want the file kept and nothing added", err, r.Uploads())
	}
}

// TestRoomFlagUsage: -room needs the file it sends and a token, checked
// before the command runs, on each command that takes it.
func TestRoomFlagUsage(t *testing.T) {
	t.Setenv(room.TokenVar, "")
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-room", "http://room:8099"}, "give -out FILE"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-out", "r.json", "-room", "http://room:8099"}, "no token"},
		{[]string{"run", "-url", "http://h/", "-duration", "1s", "-out", "r.json", "-room", "room:8099", "-room-token", "x"}, `-room "room:8099"`},
		{[]string{"sweep", "-url", "http://h/", "-duration", "1s", "-clients", "1,2", "-room", "http://room:8099", "-room-token", "x"}, "give -out FILE"},
		{[]string{"tune", "-out", "t.json", "-room", "http://room:8099"}, "no token"},
		{[]string{"tune", "-room", "http://room:8099", "-room-token", "x"}, "give -out FILE"},
		{[]string{"experiment", "-out", filepath.Join(dir, "x"), "-room", "http://room:8099", "../../loadtest/experiments/article.toml"}, "no token"},
	} {
		code, _, stderr := runCmd(context.Background(), tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("run(%q) = exit %d, stderr %q; want exit 2 naming %q", tt.args, code, stderr, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Errorf("experiment -room without a token made its report folder; want it refused before running")
	}
}
