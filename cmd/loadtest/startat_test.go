package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
)

func TestStartAtUsageErrors(t *testing.T) {
	for _, c := range []struct{ at, want string }{
		{"soon", "-start-at: start at \"soon\": want +DURATION"},
		{"+25h", "ahead: want a time within 24h0m0s"},
		{"+-1s", "want +DURATION"},
		{time.Now().Add(-time.Hour).Format(time.RFC3339), "in the past"},
	} {
		code, _, stderr := runCmd(context.Background(), "run", "-url", "http://h/", "-duration", "1s", "-start-at", c.at)
		if code != cli.ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("run -start-at %q = exit %d, %q; want exit %d and %q", c.at, code, stderr, cli.ExitUsage, c.want)
		}
	}
}

// TestStartAtAndMerge runs two generators (run() twice, in parallel)
// with one -start-at, merges them, then merges them again with one's
// window shifted by 200 ms (skewed) and by 20 s (disjoint).
func TestStartAtAndMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("two generators and four merges, about 2 s: long; runs without -short")
	}
	srv := server(t)
	dir := t.TempDir()
	at := time.Now().Add(700 * time.Millisecond).Format(time.RFC3339Nano)
	files := []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}
	var wg sync.WaitGroup
	for _, f := range files {
		wg.Go(func() {
			code, _, stderr := runCmd(context.Background(), "run", "-url", srv.URL, "-clients", "2", "-model", "rate", "-think", "10ms",
				"-warmup", "200ms", "-duration", "500ms", "-start-at", at, "-progress", "off", "-out", f)
			if code != 0 || !strings.Contains(stderr, "waiting until") {
				t.Errorf("run -start-at %s = exit %d; stderr %q", at, code, stderr)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	merged := filepath.Join(dir, "m.json")
	code, stdout, stderr := runCmd(context.Background(), "merge", "-out", merged, files[0], files[1])
	if code != 0 || !strings.Contains(stdout, "start skew 0.000 ms, end skew 0.000 ms") || strings.Contains(stderr, "warning") {
		t.Fatalf("merge = exit %d\n%s\n%s\nwant no skew and no warning", code, stdout, stderr)
	}
	m, err := loadtest.ReadResult(merged)
	if err != nil || m.Overlap == nil || len(m.Overlap.Generators) != 2 || m.Overlap.Seconds != 0.5 {
		t.Fatalf("merged result %v, %v; want an overlap of two generators over 0.5 s", m, err)
	}

	shift := func(d time.Duration) string {
		r, err := loadtest.ReadResult(files[1])
		if err != nil {
			t.Fatal(err)
		}
		r.Start, r.MeasureStart, r.End = r.Start.Add(d), r.MeasureStart.Add(d), r.End.Add(d)
		p := filepath.Join(dir, "shifted.json")
		if err := r.WriteJSON(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// 200 ms later: merged, with a warning giving the skew.
	code, stdout, stderr = runCmd(context.Background(), "merge", files[0], shift(200*time.Millisecond))
	if code != 0 || !strings.Contains(stderr, "warning: the generators' measured windows differ by up to 200.0 ms") || !strings.Contains(stdout, "WARNING") {
		t.Errorf("merge of windows 200 ms apart = exit %d\n%s\n%s\nwant a warning of the 200 ms skew", code, stdout, stderr)
	}
	// 20 s later: refused, unless -allow-disjoint.
	code, _, stderr = runCmd(context.Background(), "merge", files[0], shift(20*time.Second))
	if code != cli.ExitUsage || !strings.Contains(stderr, "do not overlap") || !strings.Contains(stderr, "-allow-disjoint") {
		t.Errorf("merge of disjoint windows = exit %d, %q; want exit %d naming the gap and -allow-disjoint", code, stderr, cli.ExitUsage)
	}
	code, _, stderr = runCmd(context.Background(), "merge", "-allow-disjoint", files[0], shift(20*time.Second))
	if code != 0 || !strings.Contains(stderr, "warning:") {
		t.Errorf("merge -allow-disjoint = exit %d, %q; want a merge with a warning", code, stderr)
	}
}

func TestStartAtWaitInterrupted(t *testing.T) {
	t.Parallel()
	srv := server(t)
	out := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	code, _, stderr := runCmd(ctx, "run", "-url", srv.URL, "-duration", "1s", "-start-at", "+1m", "-progress", "off", "-out", out)
	if code != cli.ExitInterrupted || !strings.Contains(stderr, "waiting until") || !strings.Contains(stderr, "waiting to start at") {
		t.Errorf("run interrupted while waiting = exit %d, %q; want exit %d", code, stderr, cli.ExitInterrupted)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a run interrupted before its start wrote %s", out)
	}
}
