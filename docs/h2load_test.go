package docs

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"bbslab/internal/cli"
	"bbslab/internal/testenv"
	"bbslab/loadtest/grade"
)

// h2loadSampleTruth is the board's truth over the seconds of
// scripts/testdata/h2load.log: the 11 requests that got a response, in the
// seconds they were sent; no stall.
const h2loadSampleTruth = `{"version": 1,
 "window": {"start": "2026-12-03T14:04:07Z", "end": "2026-12-03T14:04:20Z", "open": false},
 "requests": 11, "status": {"200": 11},
 "seconds": [{"t": "2026-12-03T14:04:07Z", "requests": 6}, {"t": "2026-12-03T14:04:12Z", "requests": 3}, {"t": "2026-12-03T14:04:19Z", "requests": 2}],
 "server_ms": {"count": 11, "p50": 1.0, "p90": 2.0, "p95": 2.0, "p99": 900, "p999": 900, "max": 988},
 "service_ms": {"count": 11, "p50": 0.5},
 "stalls": [], "log": false}`

// TestH2loadConverter runs grading.md's converter, scripts/h2load-to-generic.sh,
// on a sample of h2load's --log-file: 11 lines of the run graded there
// (2026-12-03 14:04 UTC; 3 of them held by the stall) and one failed stream
// written to h2load's documented format (status -1; the run had none). Its
// CSV must be scripts/testdata/h2load.csv line for line, and the grader must
// read it as the generic format: 12 sent, 11 responses, the failure with its
// message, the stall's 989 ms as the max. A line it cannot read is an error
// naming the line, and the converter exits non-zero.
func TestH2loadConverter(t *testing.T) {
	_, err := exec.LookPath("awk")
	testenv.Need(t, err == nil, "no awk on this machine: the converter is an awk program")
	convert := func(in []byte) ([]byte, string, error) {
		cmd := exec.Command("sh", "scripts/h2load-to-generic.sh")
		cmd.Stdin = bytes.NewReader(in)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		return out, stderr.String(), err
	}
	in, err := os.ReadFile("scripts/testdata/h2load.log")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("scripts/testdata/h2load.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, stderr, err := convert(in)
	if err != nil || stderr != "" {
		t.Fatalf("h2load-to-generic.sh < h2load.log: %v, stderr %q", err, stderr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("h2load-to-generic.sh < h2load.log:\n%s\nwant scripts/testdata/h2load.csv:\n%s", got, want)
	}

	dir := t.TempDir()
	csvFile, truthFile := filepath.Join(dir, "h2load.csv"), filepath.Join(dir, "truth.json")
	os.WriteFile(csvFile, got, 0o644)
	os.WriteFile(truthFile, []byte(h2loadSampleTruth), 0o644)
	var out bytes.Buffer
	err = grade.Run(context.Background(), grade.Options{TruthFile: truthFile}, []string{csvFile}, &out)
	if code := cli.ExitCode(err); code != 0 {
		t.Fatalf("grade -truth ... h2load.csv = %v (exit %d); want exit 0:\n%s", err, code, out.String())
	}
	for _, w := range []string{"(generic)", "requests: sent 12, responses 11 (200: 11), no response 1",
		`note: no response: 1 x "h2load: stream failed"`, "988.980\n"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("grade output lacks %q:\n%s", w, out.String())
		}
	}

	bad := append(append([]byte{}, in[:bytes.IndexByte(in, '\n')+1]...), "1796306647557518 200 2179\n"...)
	if _, stderr, err := convert(bad); err == nil || !strings.Contains(stderr, "line 2: want start_us<TAB>status<TAB>latency_us") {
		t.Errorf("h2load-to-generic.sh on a line with spaces: %v, stderr %q; want an error naming line 2", err, stderr)
	}
}
