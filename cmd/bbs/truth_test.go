package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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

// adminPost POSTs to the admin URL u and returns the status and body.
func adminPost(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Post(u, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestTruthStopSparesTheDatabase is issue 28's data loss tried again: a
// board on a SQLite file, with truth_dir the database's directory spelled
// through a symbolic link, takes a post; truth stops naming the database
// (its absolute path, its name in truth_dir, its -wal and -shm, a path
// out of truth_dir) each answer 400 and create nothing; a plain new name
// is written; the board restarted on the same file still has the post.
func TestTruthStopSparesTheDatabase(t *testing.T) {
	base := t.TempDir()
	data, alias := filepath.Join(base, "data"), filepath.Join(base, "alias")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(data, alias); err != nil {
		t.Fatal(err)
	}
	db, outside := filepath.Join(data, "bbs.db"), filepath.Join(base, "x")
	args := []string{"-dsn", db, "-seed-posts", "5", "-truth-dir", alias}
	s := start(t, args...)
	const msg = "still here after the truth's stop"
	if code, a := call(t, s.board, url.Values{"cmd": {"AllView"}, "name": {"t"}, "message": {msg}}); code != 200 || len(a.Posts) == 0 || a.Posts[0].Message != msg {
		t.Fatalf("post: %d %+v", code, a.Posts)
	}
	if code, body := adminPost(t, s.admin+"/admin/truth/start"); code != 200 {
		t.Fatalf("truth start: %d %s", code, body)
	}
	before := dirNames(t, data)
	for _, q := range []string{
		"file=" + url.QueryEscape(db) + "&replace=1", "file=" + url.QueryEscape(db),
		"file=bbs.db&replace=1", "file=bbs.db", "file=bbs.db-wal&replace=1", "file=bbs.db-shm&replace=1",
		"file=../data/bbs.db&replace=1", "file=" + url.QueryEscape(outside),
	} {
		if code, body := adminPost(t, s.admin+"/admin/truth/stop?"+q); code != 400 || !strings.Contains(body, `"status":400`) {
			t.Errorf("stop?%s = %d %s; want 400", q, code, body)
		}
	}
	if after := dirNames(t, data); !slices.Equal(after, before) {
		t.Errorf("the refused stops changed the database's directory: %q, was %q", after, before)
	}
	if _, err := os.Lstat(outside); err == nil {
		t.Errorf("a refused stop created %s", outside)
	}
	if code, body := adminPost(t, s.admin+"/admin/truth/stop?file=truth.json"); code != 200 {
		t.Errorf("stop?file=truth.json = %d %s; want 200", code, body)
	}
	if _, err := os.Stat(filepath.Join(data, "truth.json")); err != nil {
		t.Errorf("truth.json in truth_dir: %v", err)
	}

	s.stop(t)
	s = start(t, args...)
	code, a := call(t, s.board, url.Values{"cmd": {"AllView"}, "n": {"10"}})
	found := false
	for _, p := range a.Posts {
		found = found || p.Message == msg
	}
	if code != 200 || !found {
		t.Errorf("after a restart on the same file: %d, %d posts, the post found %v; want it there", code, len(a.Posts), found)
	}
}

// TestTruthDirAtStart: a truth_file that could never be written, or a
// truth_dir that cannot be opened, stops the start with exit code 2 and a
// message naming the key and the reason.
func TestTruthDirAtStart(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "bbs.db")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-truth-file", "t.json"}, "truth_file = \"t.json\": needs truth_dir"},
		{[]string{"-truth-dir", dir, "-truth-file", "../t.json"}, "truth_file = \"../t.json\": holds a path separator"},
		{[]string{"-truth-dir", filepath.Join(dir, "none")}, "truth_dir = "},
		{[]string{"-truth-dir", dir, "-dsn", db, "-truth-file", "bbs.db"}, "board's own file"},
		{[]string{"-truth-dir", dir, "-dsn", db, "-truth-file", "bbs.db-wal"}, "board's own file"},
		{[]string{"-truth-dir", dir, "-access-log", filepath.Join(dir, "access.log"), "-truth-file", "access.log"}, "board's own file"},
	} {
		args := append([]string{"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0"}, tt.args...)
		err := run(context.Background(), args, func(string) string { return "" }, io.Discard, io.Discard)
		if err == nil || cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q) = %v, exit %d; want exit 2 saying %q", tt.args, err, cli.ExitCode(err), tt.want)
		}
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("refused starts left %q in the directory", names)
	}
}
