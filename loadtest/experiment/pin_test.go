package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestGOMAXPROCSProcess is not a test: run as a child process with
// REPORT_GOMAXPROCS set, it prints its runtime.GOMAXPROCS(0) and exits.
func TestGOMAXPROCSProcess(t *testing.T) {
	if os.Getenv("REPORT_GOMAXPROCS") == "" {
		t.Skip("helper process for the pinning tests")
	}
	fmt.Printf("GOMAXPROCS=%d\n", runtime.GOMAXPROCS(0))
}

var gomaxprocsLine = regexp.MustCompile(`GOMAXPROCS=(\d+)`)

// childGOMAXPROCS returns the GOMAXPROCS a server printed in its log.
func childGOMAXPROCS(t *testing.T, logPath string) string {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	m := gomaxprocsLine.FindSubmatch(b)
	if m == nil {
		t.Fatalf("the server's log %s does not say its GOMAXPROCS:\n%s", logPath, b)
	}
	return string(m[1])
}

// TestStartServerCapsGOMAXPROCS checks that a server that is not pinned,
// because pinning is off or fails, runs with GOMAXPROCS = the number of
// its CPUs, unless the file's env sets GOMAXPROCS, and that the note says
// which.
func TestStartServerCapsGOMAXPROCS(t *testing.T) {
	argv := []string{os.Args[0], "-test.run=^TestGOMAXPROCSProcess$"}
	tests := []struct {
		name     string
		cpus     []int
		pin      bool
		env      []string
		want     string // the child's GOMAXPROCS
		wantNote string
	}{
		{"pin off", []int{0}, false, nil, "1", "server not pinned (pinning is off): GOMAXPROCS=1 in its environment"},
		{"pin off, two CPUs", []int{0, 1, 1}, false, nil, "2", "server not pinned (pinning is off): GOMAXPROCS=2 in its environment"},
		{"pin off, the file's own", []int{0}, false, []string{"GOMAXPROCS=3"}, "3", "server not pinned (pinning is off): GOMAXPROCS=3 from the file's [server] env"},
		// No system gives this process CPU 1023: pinning fails (or affinity
		// is not available at all) and the cap takes over.
		{"pinning fails", []int{1023}, true, nil, "1", "server not pinned ("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "server.log")
			env := append([]string{"REPORT_GOMAXPROCS=1"}, tt.env...)
			p, note, err := startServer(argv, env, t.TempDir(), logPath, tt.cpus, tt.pin)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-p.Exited():
			case <-time.After(30 * time.Second):
				t.Error("the helper did not exit")
			}
			p.Stop(time.Second)
			p.log.Close()
			if got := childGOMAXPROCS(t, logPath); got != tt.want {
				t.Errorf("startServer(cpus %v, pin %v, env %q): the server's GOMAXPROCS = %s; want %s", tt.cpus, tt.pin, tt.env, got, tt.want)
			}
			if !strings.HasPrefix(note, tt.wantNote) || !strings.Contains(note, "GOMAXPROCS="+tt.want) {
				t.Errorf("startServer(cpus %v, pin %v, env %q): note %q; want it to start with %q and name GOMAXPROCS=%s", tt.cpus, tt.pin, tt.env, note, tt.wantNote, tt.want)
			}
		})
	}
}

// TestHoldGeneratorCapsGOMAXPROCS checks that the load generator, not
// pinned, runs with GOMAXPROCS = the number of its CPUs until restored.
func TestHoldGeneratorCapsGOMAXPROCS(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	note, cores, restore := holdGenerator([]int{1}, false)
	during := runtime.GOMAXPROCS(0)
	restore()
	if len(cores) != runtime.NumCPU() {
		t.Errorf("holdGenerator([1], pin off): cores %v; want every CPU (not pinned, the OS chooses)", cores)
	}
	if during != 1 {
		t.Errorf("holdGenerator([1], pin off): GOMAXPROCS %d; want 1", during)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("after restore GOMAXPROCS = %d; want %d as before", after, before)
	}
	if want := "load generator not pinned (pinning is off): GOMAXPROCS=1 while the experiment runs"; !strings.HasPrefix(note, want) {
		t.Errorf("holdGenerator([1], pin off) note %q; want it to start with %q", note, want)
	}
	if note, _, _ := holdGenerator(nil, false); note != "load generator not pinned" || runtime.GOMAXPROCS(0) != before {
		t.Errorf("holdGenerator(no CPUs): note %q, GOMAXPROCS %d; want no cap (%d)", note, runtime.GOMAXPROCS(0), before)
	}
}

// TestExperimentWithoutPinning runs an experiment with Options.NoPin: its
// server runs with GOMAXPROCS=1 for its one CPU and the notes in the
// result say what was done for the server and the generator.
func TestExperimentWithoutPinning(t *testing.T) {
	e := tinyExperiment(t, "ok")
	e.Load.Clients = []int{1}
	e.Load.Warmup = 0
	e.Load.Duration = 300 * time.Millisecond
	e.Profile = profileSpec{}
	e.Runs = e.Runs[:1]
	before := runtime.GOMAXPROCS(0)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, e, Options{Target: fakeTarget, Out: out, NoPin: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := childGOMAXPROCS(t, filepath.Join(out, "all", "server.log")); got != "1" {
		t.Errorf("the unpinned server's GOMAXPROCS = %s; want 1 (server.cpus = [0])", got)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS after Run = %d; want %d restored", after, before)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{
		"server not pinned (pinning is off): GOMAXPROCS=1 in its environment",
		"load generator not pinned (pinning is off): GOMAXPROCS=1 while the experiment runs",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("the notes lack %q:\n%s", want, notes)
		}
	}
	if md, _ := os.ReadFile(filepath.Join(out, "report.md")); !strings.Contains(string(md), "server not pinned (pinning is off)") {
		t.Errorf("report.md does not carry the pinning note")
	}
}
