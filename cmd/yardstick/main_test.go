package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/entity"
	"bbslab/entity/open"
)

// syncBuffer is run's stdout, read while run writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServes runs the command on a database the board seeded, reads the
// URL it prints and asks it for JSON.
func TestServes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bbs.db")
	st, err := open.Store(context.Background(), entity.Options{Driver: "sqlite", DSN: path, Pool: 1, SeedPosts: 40})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-db", "sqlite", "-dsn", path, "-addr", "127.0.0.1:0", "-pool", "2"}, &out, io.Discard)
	}()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if line, ok := strings.CutPrefix(out.String(), "yardstick: "); ok && strings.HasSuffix(line, "\n") {
			url = strings.TrimSpace(line)
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("no URL printed: %q (run: %v)", out.String(), <-done)
	}
	resp, err := http.Get(url + "?cmd=EachGetView&format=json&n=3")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(string(body), `{"command":"EachGetView","posts":[{"no":40,`) {
		t.Errorf("GET %s = %d %s; want 200 and posts from 40 down", url, resp.StatusCode, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run after cancel: %v", err)
	}
}

// TestUsage checks that bad flags are usage errors naming the problem.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-db", "mysql"}, `-db "mysql"`},
		{[]string{"-pool", "0"}, "-pool 0"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-bogus"}, "-bogus"},
	} {
		err := run(context.Background(), tc.args, io.Discard, io.Discard)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v; want a usage error naming %s", tc.args, err, tc.want)
		}
	}
	err := run(context.Background(), []string{"-dsn", filepath.Join(t.TempDir(), "none.db"), "-addr", "127.0.0.1:0"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "start the board on it first") {
		t.Errorf("run on a missing file = %v; want it to say to start the board first", err)
	}
}
