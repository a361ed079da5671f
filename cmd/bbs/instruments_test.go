package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// lockedBuffer collects a server's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestInstrumentsEndToEnd runs the server with the access log and SQL trace
// on, sends SIGUSR1 and checks that the goroutine dump reaches stderr while
// the server keeps serving.
func TestInstrumentsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	access, trace := filepath.Join(dir, "access.log"), filepath.Join(dir, "trace.log")
	var stderr lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-dsn", filepath.Join(dir, "bbs.db"),
			"-seed-posts", "40", "-access-log", access, "-sql-trace", trace, "-block-rate", "1", "-mutex-fraction", "1"},
			func(string) string { return "" }, pw, &stderr)
		pw.Close()
		done <- err
	}()
	var board, admin string
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "board: "); ok {
			board = u
		}
		if u, ok := strings.CutPrefix(sc.Text(), "admin: "); ok {
			admin = strings.TrimSuffix(u, "/")
			break
		}
	}
	go io.Copy(io.Discard, pr)
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	if admin == "" {
		t.Fatal("run did not print its URLs")
	}

	for _, cmd := range []string{"AllView", "EachGetView"} {
		resp, err := http.Get(board + "?cmd=" + cmd)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v %v", cmd, resp, err)
		}
		resp.Body.Close()
	}

	// SIGUSR1: a dump on stderr, and the server still answers.
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stderr.String(), "goroutine profile: total"); {
		if time.Now().After(deadline) {
			t.Fatalf("no goroutine dump on stderr after SIGUSR1:\n%.500s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "waiting for a worker (waitForWorker)") {
		t.Errorf("the dump lacks the summary of request waits")
	}
	resp, err := http.Get(board + "?cmd=AllView")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after SIGUSR1: %v %v; want the server still serving", resp, err)
	}
	resp.Body.Close()

	// -block-rate 1 records every blocking event in this process, the
	// test's own HTTP client waiting for its answers included.
	resp, err = http.Get(admin + "/debug/pprof/block")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("block profile: %v %v", resp, err)
	}
	p, err := profile.Parse(resp.Body)
	resp.Body.Close()
	if err != nil || len(p.Sample) == 0 {
		t.Errorf("block profile: %v, %d samples; want samples with -block-rate 1", err, len(p.Sample))
	}

	// Logs: one access line per request (3), 1 + 30 + 1 trace lines.
	waitLines := func(path string, n int) []string {
		var lines []string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			b, _ := os.ReadFile(path)
			lines = strings.Split(strings.TrimSpace(string(b)), "\n")
			if len(lines) >= n {
				break
			}
		}
		return lines
	}
	lines := waitLines(access, 3)
	var a struct {
		Command string `json:"command"`
		Queries int    `json:"queries"`
		Status  int    `json:"status"`
	}
	// Lines come in the order the requests ended, which need not be the
	// order the client saw the answers.
	each := 0
	for _, l := range lines {
		if json.Unmarshal([]byte(l), &a) == nil && a.Command == "EachGetView" && a.Queries == 30 && a.Status == 200 {
			each++
		}
	}
	if len(lines) != 3 || each != 1 {
		t.Errorf("access log = %q; want 3 lines, one EachGetView with 30 queries", lines)
	}
	if lines := waitLines(trace, 32); len(lines) != 32 || !strings.Contains(lines[0], `"statement":"SELECT`) {
		t.Errorf("SQL trace has %d lines (first %.100q); want 32 statements", len(lines), lines[0])
	}
}
