package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"bbslab/internal/child"
	"bbslab/internal/testenv"
)

// TestWatchEstablishedBadURL checks that a target that does not parse, or
// has no port, reads "unknown" instead of dereferencing a nil URL (the
// port was read before the parse error was checked).
func TestWatchEstablishedBadURL(t *testing.T) {
	for _, target := range []string{"http://[::1", "://no-scheme", "http://127.0.0.1/bbs"} {
		stop := watchEstablished(target)
		if got := stop(); got != "unknown" {
			t.Errorf("watchEstablished(%q)() = %q; want \"unknown\"", target, got)
		}
	}
}

// TestHeyPinned checks that bench builds a pinned hey, never @latest.
func TestHeyPinned(t *testing.T) {
	if !regexp.MustCompile(`^github\.com/rakyll/hey@v\d+\.\d+\.\d+$`).MatchString(heyModule) {
		t.Errorf("heyModule = %q; want github.com/rakyll/hey@vX.Y.Z", heyModule)
	}
}

func TestSummarizeHeld(t *testing.T) {
	for _, tt := range []struct {
		counts []int
		want   string
	}{
		{nil, "unknown"},
		{[]int{0, 400, 1000, 998, 1000, 1000, 0}, "1000 (998-1000 while loaded)"},
		{[]int{1000}, "1000 (1000-1000 while loaded)"},
	} {
		if got := summarizeHeld(tt.counts); got != tt.want {
			t.Errorf("summarizeHeld(%v) = %q; want %q", tt.counts, got, tt.want)
		}
	}
}

func TestSlowGoalCheck(t *testing.T) {
	g := slowGoal{cpuPct: 5, rssMB: 32, p50OverMs: 1}
	got := g.check(5.39, 25, 0.1)
	want := "targets: CPU < 5 % of a core: MISSED (5.39); peak RSS < 32 MB: met (25.00); p50 − server's own < 1 ms: met (0.10)"
	if got != want {
		t.Errorf("check = %q; want %q", got, want)
	}
	if got := (slowGoal{rssMB: 64}).check(9, 50, 3); got != "targets: peak RSS < 64 MB: met (50.00)" {
		t.Errorf("check with only a memory target = %q", got)
	}
}

// TestHelperProcess is not a test: run as a child with BENCH_HELPER set,
// it prints a line and exits.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("BENCH_HELPER") == "" {
		t.Skip("helper process for the bench tests")
	}
	os.Stdout.WriteString("[200]\t42 responses\n")
	os.Exit(0)
}

// TestRunTool checks that a tool's output and its usage are read, pinned
// or not.
func TestRunTool(t *testing.T) {
	t.Setenv("BENCH_HELPER", "1")
	for _, cpus := range [][]int{nil, {0}} {
		if cpus != nil && child.CanPin(cpus...) != nil {
			continue
		}
		out, u, err := runTool(context.Background(), cpus, os.Args[0], "-test.run=^TestHelperProcess$")
		if err != nil || !heyRe.Match(out) || u.cpu <= 0 || u.wall <= 0 {
			t.Errorf("runTool(cpus %v) = %q, %+v, %v; want the helper's line and its usage", cpus, out, u, err)
		}
		if runtime.GOOS != "windows" && u.rssMB <= 0 {
			t.Errorf("runTool(cpus %v): peak RSS %v MB; want more than 0", cpus, u.rssMB)
		}
	}
	if _, _, err := runTool(context.Background(), nil, filepath.Join(t.TempDir(), "nothing")); err == nil {
		t.Error("runTool(a program that does not exist) = nil error")
	}
}

// TestBenchSmoke runs one full-speed round of a second against the page
// server, with a stand-in for hey, and checks the table. No timing is
// asserted.
func TestBenchSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the load tool and runs it for a second")
	}
	_, err := exec.LookPath("go")
	testenv.Need(t, err == nil, "go is not on PATH: cannot build the load tool")
	dir := t.TempDir()
	lt := filepath.Join(dir, "loadtest")
	if out, err := exec.Command("go", "build", "-o", lt, "bbslab/cmd/loadtest").CombinedOutput(); err != nil {
		t.Fatalf("go build loadtest: %v\n%s", err, out)
	}
	hey := filepath.Join(dir, "hey")
	if err := os.WriteFile(hey, []byte("#!/bin/sh\necho '  [200]\t1000 responses'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	err = Run(context.Background(), Options{Exe: lt, Duration: time.Second, Conns: 2, Size: 100, Full: true, Hey: hey, Rounds: 1, Pin: true}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("Run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^pinning: (generator on CPU 0, target on CPU 1|none \(.+\); generator and target share the CPUs)$`),
		regexp.MustCompile(`(?m)^target: http://127\.0\.0\.1:\d+/ \(100-byte page, child process\)$`),
		regexp.MustCompile(`(?m)^round 1 loadtest\s+[1-9]\d* requests`),
		regexp.MustCompile(`(?m)^\s+loadtest\s+[1-9]\d*\s+[1-9]\d*\s+[1-9]\d*\s+1\.00\s+1\.00\s*$`),
		regexp.MustCompile(`(?m)^\s+hey\s+\d+`),
	} {
		if !want.MatchString(stdout.String()) {
			t.Errorf("bench output lacks %s:\n%s", want, stdout.String())
		}
	}
}

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		list                  string
		full, slow1k, slow10k bool
	}{
		{"full,1k,10k", true, true, true},
		{" 10k ", false, false, true},
		{"1k,nope", false, true, false},
		{"", false, false, false},
	} {
		var o Options
		o.Choose(tc.list)
		if o.Full != tc.full || o.Slow1k != tc.slow1k || o.Slow10k != tc.slow10k {
			t.Errorf("Choose(%q) = full %v, 1k %v, 10k %v; want %v, %v, %v", tc.list, o.Full, o.Slow1k, o.Slow10k, tc.full, tc.slow1k, tc.slow10k)
		}
	}
}
