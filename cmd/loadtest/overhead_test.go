package main

import (
	"context"
	"strings"
	"testing"

	"bbslab/internal/cli"
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
