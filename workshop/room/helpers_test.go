package room

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const testToken = "s3cret-room-token"

// report reads a committed report's experiment.json.
func report(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "reports", name, "experiment.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// varied is the article measured on PostgreSQL, renamed the article, as
// another laptop might have measured it: another machine, and g1-flat
// (with its first check) not reproduced.
func varied(t *testing.T) []byte {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(report(t, "article-postgres"), &e); err != nil {
		t.Fatal(err)
	}
	e["name"] = "article"
	for _, c := range e["claims"].([]any) {
		if c := c.(map[string]any); c["id"] == "g1-flat" {
			c["outcome"] = "not reproduced"
			k := c["checks"].([]any)[0].(map[string]any)
			k["outcome"], k["text"] = "not reproduced", strings.TrimSuffix(k["text"].(string), "reproduced")+"not reproduced"
		}
	}
	for _, run := range e["runs"].([]any) {
		for _, p := range run.(map[string]any)["points"].([]any) {
			res := p.(map[string]any)["result"].(map[string]any)
			gen := res["environment"].(map[string]any)["generator"].(map[string]any)
			gen["cpu_model"], gen["logical_cpus"], gen["usable_cpus"] = "Apple M2", 8, 8
			gen["os"], gen["arch"], gen["distro"], gen["kernel"] = "darwin", "arm64", "macOS 15.1", "Darwin 24.1.0"
		}
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runFile is one point of the article's graph 1 as `loadtest run -out`
// writes it.
func runFile(t *testing.T) []byte { return runAt(t, 1) }

// runAt is point i of the article's graph 1 as `loadtest run -out`
// writes it.
func runAt(t *testing.T, i int) []byte {
	t.Helper()
	var e struct {
		Runs []struct {
			Points []struct {
				Result json.RawMessage `json:"result"`
			} `json:"points"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(report(t, "article"), &e); err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(e.Runs[0].Points[i].Result, &run); err != nil {
		t.Fatal(err)
	}
	run["kind"], run["schema"], run["tool"] = "run", 2, "bbslab-loadtest"
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFile writes b to a file in a temporary directory.
func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// logs collects a room's log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.TrimSpace(fmt.Sprintf(format, a...)))
}

// waitFor waits up to 10 s for a line containing s.
func (l *logs) waitFor(t *testing.T, s string) {
	t.Helper()
	for range 200 {
		l.mu.Lock()
		found := slices.ContainsFunc(l.lines, func(line string) bool { return strings.Contains(line, s) })
		l.mu.Unlock()
		if found {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no log line with %q in 10 s; have %q", s, l.lines)
}

// serve opens the room of dir with o and serves it until the test ends.
func serve(t *testing.T, o Options) (*Room, *httptest.Server, *logs) {
	t.Helper()
	l := &logs{}
	o.Logf = l.logf
	if o.Token == "" {
		o.Token = testToken
	}
	r, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(srv.Close)
	return r, srv, l
}

// post posts body to the room once and returns the status and the answer.
func post(t *testing.T, url, token, laptop string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/upload", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if laptop != "" {
		req.Header.Set(LaptopHeader, laptop)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// get fetches a page of the room and fails the test unless it is 200.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// send sends the file at path as laptop with Send and fails the test on
// an error.
func send(t *testing.T, url, laptop, path string) Receipt {
	t.Helper()
	rec, err := Send(context.Background(), path, SendOptions{URL: url, Token: testToken, Laptop: laptop, Wait: 10 * time.Millisecond})
	if err != nil {
		t.Fatalf("send %s as %s: %v", path, laptop, err)
	}
	return rec
}

// dirFiles lists the files of dir, sorted.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// viewJSON is the room's view as /room.json gives it.
func viewJSON(t *testing.T, url string) View {
	t.Helper()
	var v View
	if err := json.Unmarshal([]byte(get(t, url+"/room.json")), &v); err != nil {
		t.Fatal(err)
	}
	return v
}
