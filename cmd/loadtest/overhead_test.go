package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"bbslab/internal/cli"
	"bbslab/internal/testenv"
)

// TestOverheadUsage checks that every bad flag is a usage error (exit 2)
// that names the flag and the value.
func TestOverheadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-commands", "AllView,Nope"}, `-commands "AllView,Nope": "Nope" is not one of AllView, OnceGetView, EachGetView`},
		{[]string{"-commands", ""}, `-commands "": "" is not one of`},
		{[]string{"-formats", "xml"}, `-formats "xml"`},
		{[]string{"-dbs", "mysql"}, `-dbs "mysql"`},
		{[]string{"-rounds", "0"}, "-rounds 0: want 1..100"},
		{[]string{"-duration", "10ms"}, "-duration 10ms: want at least 100ms"},
		{[]string{"-warmup", "-1s"}, "-warmup -1s"},
		{[]string{"-clients", "0"}, "-clients 0"},
		{[]string{"-pool", "0"}, "-pool 0"},
		{[]string{"-n", "501"}, "-n 501"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-bogus"}, "-bogus"},
	} {
		code, _, stderr := runCmd(context.Background(), append([]string{"overhead"}, tc.args...)...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("overhead %q: exit %d, stderr %q; want exit %d naming %s", tc.args, code, stderr, cli.ExitUsage, tc.want)
		}
	}
}

// TestOverheadHelp checks that -h describes the benchmark.
func TestOverheadHelp(t *testing.T) {
	code, _, stderr := runCmd(context.Background(), "overhead", "-h")
	if code != 0 || !strings.Contains(stderr, "yardstick/board") || !strings.Contains(stderr, "-commands") {
		t.Errorf("overhead -h: exit %d, %q; want 0 and the description with the flags", code, stderr)
	}
}

// TestOverheadSmoke runs the whole orchestration for one row, one round
// of a second on SQLite: it builds the board and the yardstick, starts
// both, checks their bodies agree and prints a ratio. No timing is
// asserted.
func TestOverheadSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three binaries and runs a load for a second")
	}
	_, err := exec.LookPath("go")
	testenv.Need(t, err == nil, "go is not on PATH: cannot build the board and the yardstick")
	// The load tool runs as a child ("loadtest run"): this test's binary
	// is not one, so build it.
	lt := filepath.Join(t.TempDir(), "loadtest")
	if out, err := exec.Command("go", "build", "-o", lt, "bbslab/cmd/loadtest").CombinedOutput(); err != nil {
		t.Fatalf("go build loadtest: %v\n%s", err, out)
	}
	code, stdout, stderr := runCmd(context.Background(), "overhead", "-dbs", "sqlite", "-commands", "OnceGetView", "-formats", "html",
		"-rounds", "1", "-duration", "1s", "-warmup", "0s", "-loadtest", lt)
	if code != 0 {
		t.Fatalf("overhead: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	row := regexp.MustCompile(`(?m)^sqlite\s+OnceGetView\s+html\s+[1-9]\d*\s+[1-9]\d*\s+[1-9]\d*us\s+[1-9]\d*us\s+\d+\.\d\d \(\d+\.\d\d-\d+\.\d\d\)\s+\d+\.\d\d \(\d+\.\d\d-\d+\.\d\d\)$`)
	if !row.MatchString(stdout) {
		t.Errorf("overhead printed no ratio row for sqlite OnceGetView html:\n%s", stdout)
	}
	for _, want := range []string{"date: ", "machine: ", "load average before: ", "load average after: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("overhead output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestProcCPU checks the /proc/PID/stat reader on this process and on one
// that does not exist.
func TestProcCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: not Linux")
	}
	d, err := procCPU(os.Getpid())
	if err != nil || d < 0 {
		t.Errorf("procCPU(self) = %v, %v; want a time and no error", d, err)
	}
	if _, err := procCPU(1 << 30); err == nil || !strings.Contains(err.Error(), "server CPU time") {
		t.Errorf("procCPU(no such pid) = %v; want an error naming what it read", err)
	}
}
