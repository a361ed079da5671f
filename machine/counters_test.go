package machine

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// pinnedProc is /proc under a test root with a given affinity.
type pinnedProc struct {
	procRoot
	cpus []int
}

func (p pinnedProc) affinity() ([]int, error) { return p.cpus, nil }

// TestCountersFromProc reads testdata/proc's counters in seconds (10 ms
// ticks) and checks that the own CPUs' busy seconds rise by what
// Reading.OwnCPUs shows over the same two samples.
func TestCountersFromProc(t *testing.T) {
	root := copyProc(t)
	s := newSampler(pinnedProc{procRoot(root), []int{0}})
	c, err := s.Counters()
	if err != nil {
		t.Fatalf("Counters: %v", err)
	}
	// cpu  100 0 50 800 50 0 0 0
	want := "2 CPUs: user 1 nice 0 system 0.5 idle 8 iowait 0.5 irq 0 softirq 0 steal 0"
	if got := countersText(c); got != want {
		t.Errorf("Counters() = %s; want %s", got, want)
	}
	// cpu0 50 0 25 400 25: busy 75 ticks.
	if c.Own == nil || c.Own.CPUs != 1 || !near(c.Own.BusySeconds, 0.75) {
		t.Errorf("Counters().Own = %+v; want 1 CPU, 0.75 busy seconds", c.Own)
	}
	os.WriteFile(filepath.Join(root, "stat"), []byte("cpu  200 0 100 1500 200 0 0 0 0 0\ncpu0 140 0 35 800 25 0 0 0 0 0\ncpu1 60 0 65 700 175 0 0 0 0 0\n"), 0o644)
	s.Sample()
	c2, err := s.Counters()
	if err != nil {
		t.Fatalf("Counters: %v", err)
	}
	r := s.Read()
	// cpu0 rose by 500 ticks (5 s), 100 of them busy: 20 %.
	if r.OwnCPUs == nil || r.OwnCPUs.Busy != 20 {
		t.Fatalf("Read().OwnCPUs = %+v; want 20 %% busy", r.OwnCPUs)
	}
	if d := c2.Own.BusySeconds - c.Own.BusySeconds; !near(d/5, r.OwnCPUs.Busy/100) {
		t.Errorf("own busy seconds rose by %v over 5 s of cpu0 (%v); Read shows %v %%", d, d/5, r.OwnCPUs.Busy)
	}
}

// TestCountersAbsent: a platform without I/O wait, steal or affinity
// (FakePlatform, as gopsutil on Windows) has no such modes and no Own.
func TestCountersAbsent(t *testing.T) {
	p := &FakePlatform{}
	s := NewSamplerOn(p)
	p.Advance(CPUTicks{User: 25, System: 15, Idle: 60}, 0)
	c, err := s.Counters()
	if err != nil {
		t.Fatalf("Counters: %v", err)
	}
	if got, want := countersText(c), "2 CPUs: user 0.25 system 0.15 idle 0.6"; got != want {
		t.Errorf("Counters() = %s; want %s", got, want)
	}
	if c.Own != nil {
		t.Errorf("Counters().Own = %+v; want nil (no affinity)", c.Own)
	}
}

// TestCountersUnreadable: no /proc/stat is an error, not zeros.
func TestCountersUnreadable(t *testing.T) {
	s := newSampler(procRoot(filepath.Join(t.TempDir(), "none")))
	if c, err := s.Counters(); err == nil {
		t.Errorf("Counters() without /proc = %+v, nil; want an error", c)
	}
}

func countersText(c Counters) string {
	s := fmt.Sprintf("%d CPUs:", c.CPUs)
	for _, m := range c.Modes {
		s += fmt.Sprintf(" %s %v", m.Mode, math.Round(m.Seconds*1e6)/1e6)
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
