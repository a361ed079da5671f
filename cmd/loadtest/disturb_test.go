package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestDisturbCommand plays a short schedule and prints each burst; bad
// flags are usage errors naming the flag, and an interrupt exits 130.
func TestDisturbCommand(t *testing.T) {
	code, stdout, stderr := runCmd(context.Background(), "disturb", "-cpu", "0", "-busy", "40ms", "-every", "100ms", "-for", "250ms")
	if code != 0 {
		t.Fatalf("disturb = exit %d: %s", code, stderr)
	}
	for _, want := range []string{"disturb CPU 0: busy 40ms of every 100ms for 250ms: 3 bursts", "burst 1/3: CPU 0 busy for 40ms", "burst 3/3: ended after", "disturb: done"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runCmd(context.Background(), "disturb", "-busy", "20ms", "-every", "40ms", "-for", "200ms", "-random", "-seed", "3")
	if code != 0 || !strings.Contains(stdout, "random bursts of 10ms-30ms, busy 20ms of every 40ms on average (seed 3)") {
		t.Errorf("disturb -random = exit %d:\n%s", code, stdout)
	}
	for _, tt := range []struct{ args, want string }{
		{"-cpu x", `-cpu "x"`},
		{"-busy 2s -every 1s", "-every 1s: want at least -busy (2s)"},
		{"-for 0s", "-for 0s"},
	} {
		code, _, stderr := runCmd(context.Background(), append([]string{"disturb"}, strings.Fields(tt.args)...)...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("disturb %s = exit %d, %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel) // as Ctrl-C cancels main's context
	if code, _, stderr := runCmd(ctx, "disturb", "-busy", "1h", "-every", "1h", "-for", "1h"); code != 130 {
		t.Errorf("interrupted disturb = exit %d (%s); want 130", code, stderr)
	}
}
