package grade

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
)

// vegetaTruth is a truth matching testdata/vegeta.json: 29 responses in
// 3 s, no stall, server times below the tool's.
const vegetaTruth = `{"version": 1,
 "window": {"start": "2026-12-02T07:20:00Z", "end": "", "open": true},
 "requests": 29, "status": {"200": 28, "503": 1},
 "seconds": [{"t": "2026-12-02T07:20:00Z", "requests": 10}, {"t": "2026-12-02T07:20:01Z", "requests": 10}, {"t": "2026-12-02T07:20:02Z", "requests": 9}],
 "server_ms": {"count": 29, "p50": 1.5, "p90": 1.6, "p99": 1.7, "p999": 1.7, "max": 1.8},
 "service_ms": {"count": 29, "p50": 1.0},
 "stalls": [], "log": false}`

// TestOptionsFlags checks that the flags' help, written out in the tags,
// names the paths and formats grade uses: TruthPath, TruthLogPath and
// FormatNames.
func TestOptionsFlags(t *testing.T) {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	var o Options
	cli.BindFlags(fs, &o)
	for name, want := range map[string]string{
		"server":    "(its truth at " + TruthPath + ")",
		"truth-log": "(GET " + TruthLogPath + " saved)",
		"format":    "(" + FormatNames() + ")",
	} {
		if f := fs.Lookup(name); f == nil || !strings.Contains(f.Usage, want) {
			t.Errorf("-%s: %+v; want its help to say %q", name, f, want)
		}
	}
	if err := fs.Parse([]string{"-server", "http://x", "-truth", "t.json", "-truth-log", "l.jsonl", "-format", "k6", "-window", "a,b"}); err != nil {
		t.Fatal(err)
	}
	if want := (Options{Server: "http://x", TruthFile: "t.json", TruthLog: "l.jsonl", Format: "k6", Window: "a,b"}); o != want {
		t.Errorf("parsed %+v; want %+v", o, want)
	}
}

// TestRunExitCodes runs grade end to end over HTTP: a passing grade exits
// 0, a failing one 3, bad input 2.
func TestRunExitCodes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != TruthPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(vegetaTruth))
	}))
	defer srv.Close()
	dir := t.TempDir()
	newer := filepath.Join(dir, "v2.json")
	os.WriteFile(newer, []byte(strings.Replace(vegetaTruth, `"version": 1`, `"version": 2`, 1)), 0o644)

	tests := []struct {
		name  string
		o     Options
		files []string
		code  int
		out   string
	}{
		{"pass", Options{Server: srv.URL}, []string{"testdata/vegeta.json"}, 0, "PASS        counts agree"},
		{"counts fail", Options{TruthFile: "testdata/truth.json"}, []string{"testdata/vegeta.json"}, cli.ExitSLO, "FAIL        counts agree"},
		{"garbage", Options{Server: srv.URL}, []string{"testdata/garbage.txt"}, cli.ExitUsage, ""},
		{"no truth", Options{}, []string{"testdata/vegeta.json"}, cli.ExitUsage, ""},
		{"newer truth", Options{TruthFile: newer}, []string{"testdata/vegeta.json"}, cli.ExitUsage, ""},
		{"bad window", Options{Server: srv.URL, Window: "yesterday"}, []string{"testdata/hey.csv"}, cli.ExitUsage, ""},
		{"unknown format", Options{Server: srv.URL, Format: "gatling"}, []string{"testdata/hey.csv"}, cli.ExitUsage, ""},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		err := Run(context.Background(), tt.o, tt.files, &out)
		if code := cli.ExitCode(err); code != tt.code {
			t.Errorf("%s: Run = %v (exit %d); want exit %d\n%s", tt.name, err, code, tt.code, out.String())
		}
		if !strings.Contains(out.String(), tt.out) {
			t.Errorf("%s: output lacks %q:\n%s", tt.name, tt.out, out.String())
		}
	}
}

// TestRunEveryFixture grades every fixture of the stall truth's window
// against it, with its per-request log (hey's offsets need it to place
// the stall): each is read and graded, none is a usage error. The lab's
// fixture is of another window (TestCannotGrade).
func TestRunEveryFixture(t *testing.T) {
	truthFile, logFile := stallTruthWithLog(t)
	files := []string{"testdata/vegeta.json", "testdata/k6.json", "testdata/hey.csv", "testdata/jmeter.jtl", "testdata/wrk.txt"}
	var out bytes.Buffer
	err := Run(context.Background(), Options{TruthFile: truthFile, TruthLog: logFile}, files, &out)
	if code := cli.ExitCode(err); code != cli.ExitSLO {
		t.Fatalf("Run = %v (exit %d); want exit 3 (the fixtures are not the truth's tools)\n%s", err, code, out.String())
	}
	for _, f := range files {
		if !strings.Contains(out.String(), "== "+f) {
			t.Errorf("output lacks a grade for %s", f)
		}
	}
	if testing.Verbose() {
		t.Log(out.String())
	}
}

// stallTruthWithLog writes testdata/truth.json with a per-request log of
// 5000 arrivals, 2 ms apart from the window's start (what a file of
// offsets needs to be placed against a truth with stalls), and returns
// the two files.
func stallTruthWithLog(t *testing.T) (truthFile, logFile string) {
	t.Helper()
	b, err := os.ReadFile("testdata/truth.json")
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	for i := 0; i < 5000; i++ {
		a := base.Add(time.Duration(i) * 2 * time.Millisecond)
		fmt.Fprintf(&log, `{"arrival":%q,"end":%q}`+"\n", a.Format(time.RFC3339Nano), a.Add(time.Millisecond).Format(time.RFC3339Nano))
	}
	rep["log"], rep["log_lines"] = true, 5000
	dir := t.TempDir()
	truthFile, logFile = filepath.Join(dir, "truth.json"), filepath.Join(dir, "truth.log")
	b, _ = json.Marshal(rep)
	if err := os.WriteFile(truthFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logFile, log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return truthFile, logFile
}
