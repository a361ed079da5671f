package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genericTruth is a truth over loadtest/grade/testdata/generic.csv's
// second: its 9 responses (8 x 200, 1 x 503), no stall.
const genericTruth = `{"version": 1,
 "window": {"start": "2026-12-02T07:20:00Z", "end": "2026-12-02T07:20:01Z", "open": false},
 "requests": 9, "status": {"200": 8, "503": 1},
 "seconds": [{"t": "2026-12-02T07:20:00Z", "requests": 9}],
 "server_ms": {"count": 9, "p50": 1.5, "p90": 1.6, "p99": 1.7, "p999": 1.7, "max": 1.8},
 "service_ms": {"count": 9, "p50": 1.0},
 "stalls": [], "log": false}`

// TestGradeGenericFormat runs `loadtest grade` on the generic format's
// fixtures, recognised from their content and named with -format generic
// (exit 0, graded as generic); -format generic on vegeta's file exits 2
// naming the line and the column it does not know; the usage lists generic.
func TestGradeGenericFormat(t *testing.T) {
	truth := filepath.Join(t.TempDir(), "truth.json")
	if err := os.WriteFile(truth, []byte(genericTruth), 0o644); err != nil {
		t.Fatal(err)
	}
	const fixtures = "../../loadtest/grade/testdata/"
	for _, args := range [][]string{
		{"grade", "-truth", truth, fixtures + "generic.csv", fixtures + "generic.jsonl"},
		{"grade", "-truth", truth, "-format", "generic", fixtures + "generic.csv", fixtures + "generic.jsonl"},
	} {
		code, out, errs := runCmd(context.Background(), args...)
		if code != 0 || strings.Count(out, "(generic)") != 2 || strings.Count(out, "PASS        counts agree: tool 9 responses, server 9") != 2 {
			t.Errorf("loadtest %s: exit %d, stderr %q; want exit 0, both files graded as generic with 9 responses:\n%s", strings.Join(args, " "), code, errs, out)
		}
	}
	code, _, errs := runCmd(context.Background(), "grade", "-truth", truth, "-format", "generic", fixtures+"vegeta.json")
	if code != 2 || !strings.Contains(errs, "vegeta.json (generic): line 1: unknown column") {
		t.Errorf("loadtest grade -format generic vegeta.json: exit %d, stderr %q; want exit 2 naming line 1's unknown column", code, errs)
	}
	if _, _, errs := runCmd(context.Background(), "grade", "-h"); !strings.Contains(errs, "generic") {
		t.Errorf("loadtest grade -h does not list the generic format:\n%s", errs)
	}
}
