package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
)

// TestExperimentVisitOrder runs two runs at two client counts, twice
// each, against fake servers, and reads back the order the steps were
// measured in: run by run with repeats back to back, or interleaved.
func TestExperimentVisitOrder(t *testing.T) {
	t.Parallel() // the order of the steps, nothing judged: whatever else runs
	tests := []struct {
		interleave bool
		want       []string // run/clients in the order measured
	}{
		{false, []string{"all/1", "all/1", "all/2", "all/2", "each/1", "each/1", "each/2", "each/2"}},
		{true, []string{"all/1", "each/1", "all/2", "each/2", "all/1", "each/1", "all/2", "each/2"}},
	}
	for _, tt := range tests {
		e := tinyExperiment(t, "ok")
		e.Profile = profileSpec{}
		e.Validate.Board = ""
		e.Load.Warmup = 0
		e.Load.Duration = 300 * time.Millisecond
		e.Load.Repeats = 2
		e.Load.ResetEach = true
		e.Load.Interleave = tt.interleave
		e.Disturbance.Off = true // the order of the planned steps: no re-measure of a busy machine's
		var log strings.Builder
		out := t.TempDir()
		res, err := Run(context.Background(), e, Options{Target: fakeTarget, Out: out, Log: &log})
		if err != nil {
			t.Fatalf("interleave %v: Run: %v\n%s", tt.interleave, err, log.String())
		}
		type step struct {
			seq  int
			name string
		}
		var steps []step
		for _, r := range res.Runs {
			for _, p := range r.Points {
				if len(p.Repeats) != 2 || p.Summary == nil || p.Summary.Total["throughput"].N != 2 {
					t.Errorf("interleave %v: %s at %d clients: %d repeats, summary %+v; want 2 of each", tt.interleave, r.Name, p.Clients, len(p.Repeats), p.Summary)
				}
				for _, rp := range p.Repeats {
					steps = append(steps, step{rp.Seq, fmt.Sprintf("%s/%d", r.Name, p.Clients)})
				}
			}
		}
		slices.SortFunc(steps, func(a, b step) int { return a.seq - b.seq })
		var got []string
		for i, s := range steps {
			if s.seq != i+1 {
				t.Errorf("interleave %v: step %d has seq %d", tt.interleave, i+1, s.seq)
			}
			got = append(got, s.name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("interleave %v: order %v; want %v", tt.interleave, got, tt.want)
		}
		// Interleaved, both servers are up before the first step.
		l := log.String()
		firstStep := strings.Index(l, "run all: repeat 1/2, 1 clients")
		eachStarts := strings.Index(l, "run each: starting")
		if firstStep < 0 || eachStarts < 0 || (eachStarts < firstStep) != tt.interleave {
			t.Errorf("interleave %v: server of run each started at %d, first step logged at %d:\n%s", tt.interleave, eachStarts, firstStep, l)
		}
		md, _ := os.ReadFile(filepath.Join(out, "report.md"))
		if !strings.Contains(string(md), "measured 2 times") {
			t.Errorf("interleave %v: report.md does not say how the points were measured", tt.interleave)
		}
	}
}

func TestInterleaveRefusesColdStart(t *testing.T) {
	text := `name = "x"
[server]
command = ["x"]
ready = "http://127.0.0.1:1/"
[load]
clients = [1]
duration = "1s"
interleave = true
[[load.request]]
url = "http://127.0.0.1:1/"
[[run]]
name = "warm"
[[run]]
name = "cold"
start = "listening"
`
	_, err := parse("x.toml", []byte(text))
	if err == nil || !strings.Contains(err.Error(), `load.interleave = true: run "cold" has start = "listening"`) {
		t.Errorf("interleave with a cold start = %v; want it refused naming the run", err)
	}
	if _, err := parse("x.toml", []byte(strings.Replace(text, "interleave = true", "interleave = false", 1))); err != nil {
		t.Errorf("a cold start without interleave: %v", err)
	}
}

func TestMakeQuick(t *testing.T) {
	e, err := parse("claims.toml", []byte(strings.Replace(claimBase, "clients = [5, 10, 20]", "clients = [1, 2, 5, 10, 15, 20]", 1)+goodClaims))
	if err != nil {
		t.Fatal(err)
	}
	e.Load.Repeats = 3
	e.Load.Duration = 10 * time.Second
	e.Load.Warmup = 3 * time.Second
	e.Profile.Seconds = 8
	e.Disturbance.MaxExtra = cli.Duration(90 * time.Second)
	e.MakeQuick()
	// The claims name 5 and 10 clients, the profile 10; the last fills up.
	if want := []int{5, 10, 20}; !slices.Equal(e.Load.Clients, want) {
		t.Errorf("quick clients %v; want %v", e.Load.Clients, want)
	}
	if !e.Quick || e.Load.Repeats != 1 || e.Load.Duration != 3*time.Second || e.Load.Warmup != time.Second || e.Profile.Seconds != 3 {
		t.Errorf("quick: %v, repeats %d, duration %v, warmup %v, profile %d s; want 1 repeat, 3s, 1s, 3 s",
			e.Quick, e.Load.Repeats, time.Duration(e.Load.Duration), time.Duration(e.Load.Warmup), e.Profile.Seconds)
	}
	if e.maxExtra() != 8*time.Second {
		t.Errorf("quick max_extra %v; want two steps of 4 s, not the file's 90 s", e.maxExtra())
	}
	e2, _ := parse("x.toml", []byte(strings.Replace(claimBase, "clients = [5, 10, 20]", "clients = [1, 2, 5, 10, 15, 20]", 1)))
	e2.Profile = profileSpec{}
	e2.MakeQuick()
	if want := []int{1, 10, 20}; !slices.Equal(e2.Load.Clients, want) {
		t.Errorf("quick clients without claims %v; want first, middle and last %v", e2.Load.Clients, want)
	}
}

func TestRepeatsChecked(t *testing.T) {
	base := `name = "x"
[server]
command = ["x"]
ready = "http://127.0.0.1:1/"
[load]
clients = [1]
duration = "1s"
repeats = N
[[load.request]]
url = "http://127.0.0.1:1/"
[[run]]
name = "a"
`
	for _, tt := range []struct {
		n    string
		want string // "" = valid
	}{{"1", ""}, {"20", ""}, {"21", "load.repeats = 21: want 1..20"}, {"-1", "load.repeats = -1"}, {`"3"`, "x.toml:8:11"}} {
		e, err := parse("x.toml", []byte(strings.Replace(base, "N", tt.n, 1)))
		switch {
		case tt.want == "" && (err != nil || e.Load.Repeats < 1):
			t.Errorf("repeats = %s: %v", tt.n, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("repeats = %s: %v; want an error with %q", tt.n, err, tt.want)
		}
	}
	e, _ := parse("x.toml", []byte(strings.Replace(base, "repeats = N\n", "", 1)))
	if e.Load.Repeats != 1 {
		t.Errorf("default repeats %d; want 1", e.Load.Repeats)
	}
}
