package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest/contract"
)

func TestCalibrateUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-bogus"}, "-bogus"},
		{[]string{"-clients", "0"}, "-clients = 0"},
		{[]string{"-target", "0"}, "-target = 0"},
		{[]string{"-tolerance", "70"}, "-tolerance = 70"},
		{[]string{"-ratio", "-1"}, "-ratio = -1"},
		{[]string{"-probes", "11"}, "-probes = 11"},
		{[]string{"-warmup", "2m"}, "-warmup = 2m0s"},
		{[]string{"-probe", "1s"}, "-probe = 1s"},
		{[]string{"-url", "https://h/bbs"}, `-url "https://h/bbs"`},
		{[]string{"-admin", "127.0.0.1:6060"}, `-admin "127.0.0.1:6060"`},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		args := append([]string{"calibrate"}, tt.args...)
		code, _, stderr := runCmd(context.Background(), args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("run(%q) = exit %d, stderr %q; want exit 2 naming %q", args, code, stderr, tt.want)
		}
	}
}

// TestCalibrateRealBoard calibrates the real board (cmd/bbs as a child,
// 5 workers and 5 connections, no wait) with short probes, and checks that
// the board keeps the wait the command chose and printed. The figures
// themselves depend on the machine and are not checked. Under -short it
// skips: the calibration's steps run on the real handler in
// loadtest/contract's TestCalibrateBoardOnTheRealBoard.
func TestCalibrateRealBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("calibrating the board binary: long; runs without -short")
	}
	board, admin := startBoard(t, "-workers", "5", "-pool", "5", "-seed-posts", "200")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, stdout, stderr := runCmd(ctx, "calibrate", "-url", board+"?cmd=AllView", "-admin", admin,
		"-probes", "1", "-warmup", "500ms", "-probe", "2s")
	if code != 0 {
		t.Fatalf("calibrate = exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	m := regexp.MustCompile(`(?m)^chosen: db_latency = (\S+) `).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("the output names no chosen db_latency:\n%s", stdout)
	}
	chosen, err := time.ParseDuration(m[1])
	if err != nil || chosen <= 0 {
		t.Fatalf("chosen db_latency %q: %v; want a positive duration", m[1], err)
	}
	nowait, probes := strings.Count(stdout, "calibrate: db_latency = 0s:"), strings.Count(stdout, "calibrate: db_latency = ")
	if nowait < 2 || nowait > 4 || probes != nowait+1 {
		t.Errorf("%d probe lines, %d with no wait; want 2-4 with no wait (until two agree), then one correction:\n%s", probes, nowait, stdout)
	}
	for _, want := range []string{"the board keeps running with db_latency = " + m[1], admin + "/admin/distance?db_latency=0s"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, stdout)
		}
	}
	if d, err := contract.Distance(ctx, admin); err != nil || d != chosen {
		t.Errorf("the board's /admin/distance = %v, %v after calibrating; want the chosen %v", d, err, chosen)
	}
}
