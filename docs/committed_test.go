package docs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/experiment"
	expresult "bbslab/loadtest/outcome"
	"bbslab/loadtest/resultfile"
)

// committed globs the repository's files matching each pattern (** for
// any depth under docs/), failing when a pattern that must match nothing
// less matches nothing.
func committed(t *testing.T, patterns ...string) []string {
	t.Helper()
	var out []string
	for _, p := range patterns {
		root, rest, deep := strings.Cut(p, "/**/")
		if !deep {
			m, err := filepath.Glob(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, m...)
			continue
		}
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if ok, _ := filepath.Match(rest, d.Name()); ok {
					out = append(out, path)
				}
			}
			return err
		})
	}
	return out
}

// checkSettings holds what every committed run's settings have: clients,
// a length, a known model and timer, a timeout.
func checkSettings(t *testing.T, where string, s loadtest.Settings) {
	t.Helper()
	_, merr := loadtest.ParseModel(string(s.Model))
	_, terr := loadtest.ParseTimer(string(s.TimerKind))
	if s.Clients < 1 || (s.Duration <= 0 && s.MaxRequests <= 0) || merr != nil || terr != nil || s.Timeout <= 0 || len(s.Requests) == 0 {
		t.Errorf("%s: settings %+v; want clients, a duration or a count, a model, a timer, a timeout and requests", where, s)
	}
}

// TestCommittedExperimentsLoad loads every committed experiment file, as
// the settings' declaration (loadtest.Settings' toml tags) reads them,
// and checks a few values known from the files.
func TestCommittedExperimentsLoad(t *testing.T) {
	files := committed(t, "../loadtest/experiments/*.toml", "../docs/**/*.toml")
	if len(files) < 10 {
		t.Fatalf("%d experiment files found; want the 10 or more under loadtest/experiments", len(files))
	}
	loaded := map[string]*experiment.Experiment{}
	for _, f := range files {
		e, err := experiment.Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		loaded[filepath.Base(f)] = e
	}
	if e := loaded["article.toml"]; e != nil {
		l := e.Load
		if l.Warmup != time.Second || l.Duration != 4*time.Second || l.Model != loadtest.ModelDelay || l.Think != 0 ||
			l.Timeout != 10*time.Second || !slices.Equal(l.Clients, []int{1, 2, 5, 10, 15, 20, 30}) || l.Repeats != 3 || len(l.Requests) != 1 {
			t.Errorf("article.toml [load] = %+v; want warm-up 1s, duration 4s, delay, think 0, timeout 10s (the default), clients 1..30, 3 repeats, one request", l)
		}
	}
	if e := loaded["nagle.toml"]; e != nil {
		if l := e.Load; l.TimerKind != loadtest.TimerUniform || l.Think != 20*time.Millisecond || l.ThinkDev != 10*time.Millisecond {
			t.Errorf("nagle.toml [load] timer %q, think %v, think_dev %v; want uniform, 20ms, 10ms", l.TimerKind, l.Think, l.ThinkDev)
		}
	}
	if e := loaded["tune.toml"]; e == nil || !slices.Equal(e.Tune.Starts, []string{"5/5", "40/40"}) || e.Tune.Clients != 20 || e.Tune.SLO != "p99<10ms" || len(e.Claims) != 4 {
		t.Errorf("tune.toml: %v; want [tune] from 5/5 and 40/40 at 20 clients under p99<10ms, and 4 claims", e)
	}
	if e := loaded["coldstart.toml"]; e != nil && e.Load.TimelineRequests != 2000 {
		t.Errorf("coldstart.toml load.timeline = %d; want 2000", e.Load.TimelineRequests)
	}
	if e := loaded["coordinated-omission.toml"]; e != nil {
		if len(e.Runs) != 3 || e.Runs[1].Model != loadtest.ModelRate || e.Runs[1].Think != 25*time.Millisecond ||
			e.Runs[2].Model != loadtest.ModelOpen || e.Runs[2].Rate != 400 || e.Runs[2].Clients != 400 {
			t.Errorf("coordinated-omission.toml runs = %+v; want per-client rate (rate, 25ms) and open (400/s, 400 clients)", e.Runs)
		}
	}
}

// TestCommittedResultsLoad decodes every committed result (the reports'
// experiment.json and sweep.json, the grader's test result), schema 1's
// nanoseconds and schema 2's milliseconds alike, and checks a few values.
func TestCommittedResultsLoad(t *testing.T) {
	sweeps := committed(t, "../docs/**/sweep.json")
	exps := committed(t, "../docs/**/experiment.json")
	if len(sweeps) < 30 || len(exps) < 10 {
		t.Fatalf("%d sweep.json and %d experiment.json under docs/; want the 30 and 10 reports' files", len(sweeps), len(exps))
	}
	seen := map[string]loadtest.Settings{}
	for _, f := range sweeps {
		runs, err := resultfile.Read(f)
		if err != nil || len(runs) == 0 {
			t.Errorf("%s: %d runs, %v", f, len(runs), err)
			continue
		}
		for _, r := range runs {
			checkSettings(t, f, r.Settings)
		}
		seen[strings.TrimPrefix(filepath.ToSlash(f), "../docs/reports/")] = runs[0].Settings
	}
	if s := seen["coordinated-omission/open/sweep.json"]; s.Model != loadtest.ModelOpen || s.Rate != 400 || s.Clients != 400 ||
		s.Think != 25*time.Millisecond || s.Warmup != time.Second || s.Duration != 6*time.Second || s.MaxDuration != 7*time.Second {
		t.Errorf("coordinated-omission/open/sweep.json settings = %+v; want open, 400/s, 400 clients, think 25ms, 1s + 6s, max 7s", s)
	}
	if s := seen["nplus1/AllView/sweep.json"]; s.Clients != 1 || s.Duration != 4*time.Second || s.Timeout != 10*time.Second {
		t.Errorf("nplus1/AllView/sweep.json settings = %+v; want 1 client, 4s, timeout 10s", s)
	}
	for _, f := range exps {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var res expresult.Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(res.Runs) == 0 {
			t.Errorf("%s: no runs", f)
		}
		for _, r := range res.Runs {
			for _, p := range r.Points {
				if p.Result != nil {
					checkSettings(t, f+" "+r.Name, p.Result.Settings)
				}
			}
		}
		if strings.Contains(filepath.ToSlash(f), "/coldstart/") {
			s := res.Runs[0].Points[0].Result.Settings
			if s.Name != "cold" || s.TimelineRequests != 2000 || s.Think != 10*time.Millisecond || s.Seed == 0 {
				t.Errorf("%s: first settings %+v; want cold, timeline 2000, think 10ms, the run's seed recorded", f, s)
			}
		}
	}
	r, err := loadtest.ReadResult("../loadtest/grade/testdata/loadtest-run.json")
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Settings; s.Model != loadtest.ModelOpen || s.Rate != 20 || s.Clients != 2 || s.Duration != 2*time.Second || s.Seed != 1796196116477593346 {
		t.Errorf("grade's loadtest-run.json settings = %+v; want open, 20/s, 2 clients, 2s, its seed", s)
	}
}
