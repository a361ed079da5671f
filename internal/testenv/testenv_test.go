package testenv

import (
	"strings"
	"testing"
)

// recorder is a TB that records what Need did instead of stopping.
type recorder struct{ skipped, failed string }

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = args[0].(string) }
func (r *recorder) Fatal(args ...any) { r.failed = args[0].(string) }

func TestNeed(t *testing.T) {
	for _, tc := range []struct {
		ci         string
		ok         bool
		skip, fail bool
	}{
		{"", true, false, false},
		{"true", true, false, false},
		{"", false, true, false},
		{"false", false, true, false},
		{"true", false, false, true},
	} {
		t.Setenv("CI", tc.ci)
		var r recorder
		Need(&r, tc.ok, "no server")
		if (r.skipped != "") != tc.skip || (r.failed != "") != tc.fail {
			t.Errorf("Need(CI=%q, ok=%v): skipped %q, failed %q; want skip %v, fail %v", tc.ci, tc.ok, r.skipped, r.failed, tc.skip, tc.fail)
		}
		if tc.fail && !strings.Contains(r.failed, "CI=true") {
			t.Errorf("Need(CI=true) failure %q does not say why it did not skip", r.failed)
		}
	}
}

func TestPostgresDSN(t *testing.T) {
	t.Setenv("CI", "true")
	t.Setenv(PostgresDSNVar, "")
	var r recorder
	PostgresDSN(&r)
	if r.failed == "" || !strings.Contains(r.failed, PostgresDSNVar) {
		t.Errorf("PostgresDSN under CI with no DSN: failed %q, skipped %q; want a failure naming %s", r.failed, r.skipped, PostgresDSNVar)
	}
	t.Setenv(PostgresDSNVar, "postgres://x")
	r = recorder{}
	if got := PostgresDSN(&r); got != "postgres://x" || r.failed != "" || r.skipped != "" {
		t.Errorf("PostgresDSN with the DSN set = %q (failed %q, skipped %q)", got, r.failed, r.skipped)
	}
}
