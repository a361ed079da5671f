package resultfile

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest"
)

// TestReadsEveryCommittedVersion1File reads every result this repository
// keeps in schema version 1 (the reports' sweeps and experiments, the
// grader's test data) as version 2: durations in the settings from their
// nanoseconds, p95 and min filled from the histograms.
func TestReadsEveryCommittedVersion1File(t *testing.T) {
	var files []string
	root := "../../docs/reports"
	if testing.Short() {
		root = "../../docs/reports/nplus1" // all of them (18 MB) take 2-5 s: runs without -short
	}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && (d.Name() == "sweep.json" || d.Name() == "experiment.json") {
			files = append(files, path)
		}
		return err
	})
	files = append(files, "../grade/testdata/loadtest-run.json")
	if len(files) < 5 {
		t.Fatalf("found %d committed result files; want the reports' sweeps and experiments", len(files))
	}
	for _, f := range files {
		runs, err := Read(f)
		if errors.Is(err, ErrTunings) {
			// An experiment of tunings alone (docs/reports/tune) is refused
			// with that reason; any other file must be read.
			if b, _ := os.ReadFile(f); !bytes.Contains(b, []byte(`"tunes": [`)) {
				t.Errorf("Read(%s): %v; it has no tunings", f, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Read(%s): %v", f, err)
			continue
		}
		for i, r := range runs {
			s, tot := r.Settings, r.Total
			if s.Clients < 1 || s.Duration <= 0 && s.MaxRequests == 0 || s.Timeout <= 0 || s.Duration%time.Millisecond != 0 {
				t.Errorf("%s run %d: settings %+v; want clients, a whole-millisecond duration and a timeout read from nanoseconds", f, i, s)
			}
			if tot.Successes > 0 && !(tot.P90Ms <= tot.P95Ms && tot.P95Ms <= tot.P99Ms && tot.MinMs > 0 && tot.MinMs <= tot.P50Ms) {
				t.Errorf("%s run %d: min %g p50 %g p90 %g p95 %g p99 %g; want p95 filled in between p90 and p99", f, i, tot.MinMs, tot.P50Ms, tot.P90Ms, tot.P95Ms, tot.P99Ms)
			}
		}
	}
	// A few figures of one sweep, checked by hand against the file.
	runs, err := Read("../../docs/reports/nplus1/AllView/sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	if r.Name != "AllView" || r.Settings.Clients != 1 || r.Settings.Duration != 4*time.Second || r.Settings.Warmup != time.Second ||
		r.Settings.Timeout != 10*time.Second || r.Total.Requests != 1257 || r.Total.P50Ms != 3.157 || r.Total.P99Ms != 3.575 ||
		math.Abs(r.Total.P95Ms-3.3) > 0.1 {
		t.Errorf("nplus1 AllView 1 client: %s, %d clients, duration %v, warm-up %v, timeout %v, %d requests, p50 %g, p95 %g, p99 %g; want AllView, 1, 4s, 1s, 10s, 1257, 3.157, ~3.3, 3.575",
			r.Name, r.Settings.Clients, r.Settings.Duration, r.Settings.Warmup, r.Settings.Timeout, r.Total.Requests, r.Total.P50Ms, r.Total.P95Ms, r.Total.P99Ms)
	}
	exp, err := Read("../../docs/reports/nplus1/experiment.json")
	if err != nil || len(exp) < 3 || !strings.Contains(exp[0].Name, "View") {
		t.Errorf("Read(nplus1 experiment.json) = %d runs (first %q), %v; want one per run and client count", len(exp), func() string {
			if len(exp) > 0 {
				return exp[0].Name
			}
			return ""
		}(), err)
	}
}

// TestReadTunings refuses a tuning's files with ErrTunings, the reason a
// user is told, and still calls an experiment with neither points nor
// tunings empty.
func TestReadTunings(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, body string
		tunings    bool
	}{
		{"tune.json", `{"tool": "loadtest tune", "at": "2026-12-05T03:00:00Z", "load": {}, "steps": [], "winner": {"workers": 15, "pool": 15}}`, true},
		{"tunebench.json", `{"tool": "loadtest tunebench", "at": "2026-12-05T03:00:00Z", "tunes": [], "grid": []}`, true},
		{"experiment.json", `{"schema": 2, "kind": "experiment", "runs": [{"name": "AllView", "points": null}], "tunes": [{"run": "AllView", "start": "5/5"}]}`, true},
		{"empty.json", `{"schema": 2, "kind": "experiment", "runs": [{"name": "AllView", "points": null}]}`, false},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		runs, err := Read(p)
		switch {
		case err == nil:
			t.Errorf("%s: read %d runs; want an error", c.name, len(runs))
		case errors.Is(err, ErrTunings) != c.tunings:
			t.Errorf("%s: %v; want ErrTunings %v", c.name, err, c.tunings)
		case !c.tunings && !strings.Contains(err.Error(), "no measured points"):
			t.Errorf("%s: %v; want \"no measured points\"", c.name, err)
		case c.tunings && !strings.Contains(err.Error(), p+": a tuning's file"):
			t.Errorf("%s: %v; want the file and the reason", c.name, err)
		}
	}
}

// TestReadSweep reads a sweep as loadtest.WriteSweepJSON writes it: its
// runs in order, named after the sweep.
func TestReadSweep(t *testing.T) {
	a, b := &loadtest.Result{Settings: loadtest.Settings{Clients: 1}}, &loadtest.Result{Settings: loadtest.Settings{Clients: 4}}
	a.Total.Requests, b.Total.Requests = 10, 40
	p := filepath.Join(t.TempDir(), "sweep.json")
	if err := loadtest.WriteSweepJSON(p, "fast", []*loadtest.Result{a, b}); err != nil {
		t.Fatal(err)
	}
	runs, err := Read(p)
	if err != nil || len(runs) != 2 || runs[1].Total.Requests != 40 || runs[1].Settings.Clients != 4 || runs[0].Name != "fast" {
		t.Fatalf("Read(sweep) = %d runs, %v; want the 2 runs, named fast", len(runs), err)
	}
}

// TestReadNewerSchema checks that a result or sweep from a newer schema
// version is refused, not misread.
func TestReadNewerSchema(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"run.json":   `{"schema": 99, "kind": "run", "total": {"requests": 5}}`,
		"sweep.json": `{"schema": 99, "kind": "sweep", "runs": []}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if runs, err := Read(p); err == nil || !strings.Contains(err.Error(), "schema version 99 not supported") {
			t.Errorf("Read(%s) = %d runs, %v; want a schema version error", name, len(runs), err)
		}
	}
}
