package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
)

// TestBadBehaviourExitCode: a bad behaviour knob stops start-up with exit
// code 2 and a message naming the key.
func TestBadBehaviourExitCode(t *testing.T) {
	for _, tt := range []struct {
		args []string
		key  string
	}{
		{[]string{"-stall-every", "1s"}, "stall_for"},
		{[]string{"-delay", "sometimes"}, "delay"},
		{[]string{"-error-share", "0.1"}, "error_status"},
		{[]string{"-size", "-5"}, "size"},
	} {
		err := run(context.Background(), tt.args, func(string) string { return "" }, io.Discard, io.Discard)
		if err == nil || cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), tt.key+" = ") {
			t.Errorf("run(%q) = %v, exit %d; want exit 2 naming %s", tt.args, err, cli.ExitCode(err), tt.key)
		}
	}
}

// TestTruthWiring starts the real board with stalls and the truth log on
// and checks that the listener, the gate and the recorder are wired: a
// request sent during a stall on a new connection is counted with its
// arrival before its start, and its service starts only when the stall
// has ended.
func TestTruthWiring(t *testing.T) {
	s := start(t, "-dsn", filepath.Join(t.TempDir(), "bbs.db"), "-seed-posts", "10",
		"-stall-every", "400ms", "-stall-for", "200ms", "-truth-log", "-error-status", "503")
	postOK := func(u string) string {
		t.Helper()
		resp, err := http.Post(s.admin+u, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s: %d %s", u, resp.StatusCode, b)
		}
		return string(b)
	}
	getCode := func(c *http.Client, u string) int {
		t.Helper()
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	postOK("/admin/truth/start")
	keepAlive := &http.Client{}
	for range 5 {
		if code := getCode(keepAlive, s.board+"?cmd=AllView&n=5"); code != 200 {
			t.Fatalf("GET: %d", code)
		}
	}
	if code := getCode(keepAlive, s.board+"?cmd=AllView&n=5&status=503"); code != 503 {
		t.Fatalf("status=503: %d", code)
	}
	var set struct {
		Stalls []struct{ Start, End time.Time }
	}
	if err := json.Unmarshal([]byte(postOK("/admin/behaviour?stall_now=300ms")), &set); err != nil || len(set.Stalls) == 0 {
		t.Fatalf("stall_now: %v %+v", err, set)
	}
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if code := getCode(fresh, s.board+"?cmd=AllView&n=5"); code != 200 {
		t.Fatalf("GET during the stall: %d", code)
	}
	var rep struct {
		Requests int64
		Status   map[string]int64
		Stalls   []struct{ Start, End time.Time }
		ServerMS struct{ Count int64 } `json:"server_ms"`
	}
	if err := json.Unmarshal([]byte(postOK("/admin/truth/stop")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 7 || rep.Status["200"] != 6 || rep.Status["503"] != 1 || rep.ServerMS.Count != 7 || len(rep.Stalls) == 0 {
		t.Errorf("truth = %+v; want 7 requests (200: 6, 503: 1) and the stalls", rep)
	}
	// The last request ended last: the log is in the order requests ended.
	resp, err := http.Get(s.admin + "/admin/truth/log")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var last struct{ Arrival, Start, End time.Time }
	n := 0
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); n++ {
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatal(err)
		}
	}
	stallEnd := set.Stalls[len(set.Stalls)-1].End
	if n != 7 || last.Arrival.After(last.Start) || last.Start.Before(stallEnd) || last.End.Before(last.Start) {
		t.Errorf("log: %d lines, last %+v; want 7, arrival <= start, start >= the stall's end %v", n, last, stallEnd)
	}
}
