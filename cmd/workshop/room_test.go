package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/internal/cli"
)

// syncBuffer is a bytes.Buffer a command writes while the test reads it.
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

// startRoom runs `workshop room` with args until the test ends and
// returns its URL, its output and a function that stops it and returns
// its error.
func startRoom(t *testing.T, args ...string) (string, *syncBuffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- runRoom(ctx, args, func(string) string { return "" }, out, out) }()
	stop := sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			return errors.New("room did not stop in 15 s")
		}
	})
	t.Cleanup(func() { stop() })
	serving := regexp.MustCompile(`room: serving (http://\S+)/ `)
	for range 200 {
		if m := serving.FindStringSubmatch(out.String()); m != nil {
			return m[1], out, stop
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("workshop room %q printed no address in 5 s:\n%s", args, out)
	return "", nil, nil
}

// TestRoomCommand serves a room, sends it a file with -send, stops it,
// and serves it again from the same folder with the file still there.
func TestRoomCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "room")
	url, out, stop := startRoom(t, "-addr", "127.0.0.1:0", "-dir", dir)
	tok := regexp.MustCompile(`room: token ([a-z2-7]{16})\n`).FindStringSubmatch(out.String())
	if tok == nil || !strings.Contains(out.String(), "-room "+url+" -room-token "+tok[1]) {
		t.Fatalf("workshop room printed no token or no line for the attendees:\n%s", out)
	}
	file := filepath.Join("..", "..", "docs", "reports", "nplus1", "experiment.json")
	var sout, serr bytes.Buffer
	getenv := func(k string) string { return map[string]string{"BBS_ROOM_TOKEN": tok[1]}[k] }
	if err := runRoom(context.Background(), []string{"-send", file, "-to", url, "-laptop", "ana"}, getenv, &sout, &serr); err != nil {
		t.Fatalf("-send: %v\n%s", err, serr.String())
	}
	if !strings.Contains(sout.String(), "as ana: experiment nplus1, stored as 000001-ana.json") {
		t.Errorf("-send printed %q; want the receipt", sout.String())
	}
	err := runRoom(context.Background(), []string{"-send", file, "-to", url, "-token", "guess"}, getenv, &sout, &serr)
	if err == nil || cli.ExitCode(err) != 1 || !strings.Contains(err.Error(), "wrong token") {
		t.Errorf("-send with a wrong token: %v (exit %d); want exit 1 saying so", err, cli.ExitCode(err))
	}
	err = runRoom(context.Background(), []string{"-send", "nothing.json", "-to", url}, getenv, &sout, &serr)
	if cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), "nothing.json") {
		t.Errorf("-send of a missing file: %v; want a usage error naming it", err)
	}
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if !strings.Contains(out.String(), "room: stopped; the uploads are in "+dir) {
		t.Errorf("on stopping the room printed:\n%s", out)
	}

	url, out, _ = startRoom(t, "-addr", "127.0.0.1:0", "-dir", dir, "-token", "same")
	if !strings.Contains(out.String(), "room: 1 uploads in "+dir) {
		t.Errorf("started again on %s it printed:\n%s", dir, out)
	}
	resp, err := http.Get(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "experiment nplus1") || !strings.Contains(string(page), "<th>ana</th>") {
		t.Errorf("the page after a restart lacks ana's nplus1:\n%s", page)
	}
}

// TestRoomCommandUsage: bad flags are usage errors naming the flag (the
// flag package prints an unknown one).
func TestRoomCommandUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-max-mb", "0"}, "-max-mb 0"},
		{[]string{"-send", "f.json"}, "-send needs -to"},
		{[]string{"-send", "f.json", "-to", "room:8099"}, `-to "room:8099"`},
		{[]string{"-bogus"}, "-bogus"},
	} {
		var stderr bytes.Buffer
		err := runRoom(context.Background(), tt.args, func(string) string { return "" }, io.Discard, &stderr)
		if cli.ExitCode(err) != 2 || !strings.Contains(err.Error()+stderr.String(), tt.want) {
			t.Errorf("workshop room %q: %v (exit %d); want a usage error naming %q", tt.args, err, cli.ExitCode(err), tt.want)
		}
	}
}
