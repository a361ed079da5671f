package loadtest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// boardNames are words that belong to the board (package loadtest/contract
// and the board itself), not to a generic load tool: its commands, its
// stats paths and metrics, its admin routes and its database. "bbslab",
// the module, is no board name.
var boardNames = regexp.MustCompile(`(?i)\bbbs\b|AllView|EachGetView|OnceGetView|worker_wait|pool_wait|/admin/|db_pool|postgres`)

// boardWords are boardNames' literals in lower case: a line without one of
// them cannot match, and most lines are passed over without the regular
// expression (slow under -race).
var boardWords = []string{"bbs", "allview", "eachgetview", "oncegetview", "worker_wait", "pool_wait", "/admin/", "db_pool", "postgres"}

// mayNameBoard reports whether line holds one of boardWords, in any case.
func mayNameBoard(line string) bool {
	lower := strings.ToLower(line)
	for _, w := range boardWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// TestNoBoardNames checks that the engine and the packages above it name
// nothing of the board in their non-test code: what they know of a target
// they are given (Settings.Watcher, watch.Options, chart.Server,
// experiment.Options, session.Options). A failure names the file and line.
func TestNoBoardNames(t *testing.T) {
	for _, dir := range []string{".", "resultfile", "text", "watch", "chart", "calibrate", "experiment", "outcome", "claim", "report", "session", "tune"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no Go files in %s: the test runs from the wrong directory", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(fh)
			for n := 1; sc.Scan(); n++ {
				if !mayNameBoard(sc.Text()) {
					continue
				}
				if m := boardNames.FindString(sc.Text()); m != "" {
					t.Errorf("%s:%d names the board (%q): %s", f, n, m, strings.TrimSpace(sc.Text()))
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatalf("read %s: %v", f, err)
			}
			fh.Close()
		}
	}
}
