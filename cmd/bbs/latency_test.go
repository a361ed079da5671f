package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"bbslab/diskbench"
	"bbslab/internal/cli"
)

func getBody(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeLatencyKnobs(t *testing.T) {
	gcBefore := debug.SetGCPercent(-1)
	debug.SetGCPercent(gcBefore)
	limitBefore := debug.SetMemoryLimit(-1)

	db := filepath.Join(t.TempDir(), "bbs.db")
	s := start(t, "-dsn", db, "-seed-posts", "40", "-page-size", "10", "-warmup",
		"-tcp-nodelay=false", "-write-chunks", "4", "-gogc", "150", "-gomemlimit", "1GiB")

	// Ready only after the warm-up pass; wait for it (bounded).
	code, body := getBody(t, s.admin+"/readyz")
	for deadline := time.Now().Add(10 * time.Second); code != 200 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		code, body = getBody(t, s.admin+"/readyz")
	}
	if code != 200 {
		t.Fatalf("readyz with -warmup: %d %s", code, body)
	}
	code, page := getBody(t, s.board+"?cmd=AllView")
	if code != 200 || !strings.Contains(page, "</html>") {
		t.Errorf("page with -write-chunks 4 and Nagle on: %d, %d bytes", code, len(page))
	}

	_, body = getBody(t, s.admin+"/admin/stats")
	var st struct {
		GC struct {
			GOGCPercent      int64 `json:"gogc_percent"`
			MemoryLimitBytes int64 `json:"memory_limit_bytes"`
		} `json:"gc"`
		Commands map[string]struct {
			Requests int64 `json:"requests"`
		} `json:"commands"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.GC.GOGCPercent != 150 || st.GC.MemoryLimitBytes != 1<<30 {
		t.Errorf("stats gc = %+v; want gogc 150 and a 1GiB limit from the flags", st.GC)
	}
	// Warm-up runs each command once and is counted (bbs.Server.WarmUp).
	if st.Commands["AllView"].Requests != 2 || st.Commands["EachGetView"].Requests != 1 {
		t.Errorf("stats commands = %+v; want AllView 2 (the warm-up and one request) and EachGetView 1 (the warm-up)", st.Commands)
	}

	s.stop(t)
	if got := debug.SetGCPercent(gcBefore); got != gcBefore {
		t.Errorf("GC percent after serve = %d; want %d restored", got, gcBefore)
	}
	if got := debug.SetMemoryLimit(-1); got != limitBefore {
		t.Errorf("memory limit after serve = %d; want %d restored", got, limitBefore)
	}
}

func TestDiskbenchCommand(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"diskbench", "-dir", dir, "-n", "20", "-json"}, os.Getenv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var res diskbench.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Dir != dir || res.N != 20 || len(res.Stats) != len(diskbench.Ops) {
		t.Errorf("diskbench -json = %+v, %v; want 20 files in %s and %d stats", res, err, dir, len(diskbench.Ops))
	}

	// Without -dir: the directory of the SQLite database.
	dbDir := t.TempDir()
	out.Reset()
	if err := run(context.Background(), []string{"diskbench", "-dsn", "file:" + filepath.Join(dbDir, "x.db") + "?_journal_mode=WAL", "-n", "5"}, os.Getenv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"in " + dbDir, "All times are in nanoseconds.", "grade: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("diskbench -dsn output lacks %q:\n%s", want, out.String())
		}
	}
	if es, _ := os.ReadDir(dbDir); len(es) != 0 {
		t.Errorf("diskbench left %d files in %s", len(es), dbDir)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"diskbench", "-dir", filepath.Join(dir, "missing")}, 1, "does not exist"},
		{[]string{"diskbench", "-dir", "/proc", "-n", "1"}, 1, "not writable"},
		{[]string{"diskbench", "-dir", dir, "-n", "0"}, 2, "-n 0"},
		{[]string{"diskbench", "extra"}, 2, "unexpected argument"},
	} {
		err := run(context.Background(), tc.args, os.Getenv, io.Discard, io.Discard)
		if err == nil || cli.ExitCode(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v (exit %d); want exit %d and %q", tc.args, err, cli.ExitCode(err), tc.code, tc.want)
		}
	}
}
