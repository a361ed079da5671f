package merge

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
)

// writeGenerators writes twoGenerators' results, the second shifted, to
// files in a temporary folder and returns their paths.
func writeGenerators(t *testing.T, shift time.Duration) []string {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for i, r := range twoGenerators(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC), shift) {
		p := filepath.Join(dir, []string{"gen1.json", "gen2.json"}[i])
		if err := r.WriteJSON(p); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

// TestRun merges two files as "loadtest merge" does: the windows and the
// summary on stdout, the merged result in -out; a skew warned of on
// stderr; disjoint windows and an unreadable file usage errors, the first
// naming -allow-disjoint, which merges them with a warning.
func TestRun(t *testing.T) {
	files := writeGenerators(t, 0)
	out := filepath.Join(t.TempDir(), "m.json")
	var stdout, stderr bytes.Buffer
	if err := Run(files, out, false, &stdout, &stderr); err != nil || stderr.Len() > 0 {
		t.Fatalf("Run = %v, stderr %q; want a quiet merge", err, stderr.String())
	}
	if s := stdout.String(); !strings.HasPrefix(s, "windows: common ") || !strings.Contains(s, files[1]) || len(s) < 200 {
		t.Errorf("stdout:\n%s\nwant the windows, naming each file, then the summary", s)
	}
	if m, err := loadtest.ReadResult(out); err != nil || m.Overlap == nil || len(m.Overlap.Generators) != 2 || m.Total.Requests != 2000 {
		t.Errorf("merged file: %+v, %v; want two generators' 2000 requests", m, err)
	}

	stdout.Reset()
	if err := Run(writeGenerators(t, 2*time.Second), "", false, &stdout, &stderr); err != nil || !strings.HasPrefix(stderr.String(), "warning: ") {
		t.Errorf("Run of skewed windows = %v, stderr %q; want a merge with a warning", err, stderr.String())
	}

	disjoint := writeGenerators(t, 30*time.Second)
	err := Run(disjoint, "", false, &stdout, &stderr)
	if cli.ExitCode(err) != cli.ExitUsage || !strings.Contains(err.Error(), "give -allow-disjoint to merge them anyway") {
		t.Errorf("Run of disjoint windows = %v; want a usage error naming -allow-disjoint", err)
	}
	stderr.Reset()
	if err := Run(disjoint, "", true, &stdout, &stderr); err != nil || !strings.Contains(stderr.String(), "do not overlap") {
		t.Errorf("Run -allow-disjoint = %v, stderr %q; want a merge with a warning", err, stderr.String())
	}

	missing := filepath.Join(t.TempDir(), "none.json")
	if err := Run([]string{files[0], missing}, "", false, &stdout, &stderr); cli.ExitCode(err) != cli.ExitUsage || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("Run with a missing file = %v; want a usage error naming it", err)
	}
}
