package machine

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
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
	if c.Own == nil || len(c.Own.CPUs) != 1 || c.Own.AffinityUnknown || c.Own.MachineCPUs != 2 || !near(c.Own.BusySeconds, 0.75) {
		t.Errorf("Counters().Own = %+v; want 1 CPU of the machine's 2, 0.75 busy seconds", c.Own)
	}
	os.WriteFile(filepath.Join(root, "stat"), []byte("cpu  200 0 100 1500 200 0 0 0 0 0\ncpu0 140 0 35 800 25 0 0 0 0 0\ncpu1 60 0 65 700 175 0 0 0 0 0\n"), 0o644)
	s.Sample()
	c2, err := s.Counters()
	if err != nil {
		t.Fatalf("Counters: %v", err)
	}
	r := s.Read()
	// cpu0 rose by 500 ticks (5 s), 100 of them busy: 20 %.
	if r.OwnCPUs == nil || r.OwnCPUs.Busy == nil || *r.OwnCPUs.Busy != 20 {
		t.Fatalf("Read().OwnCPUs = %+v; want 20 %% busy", r.OwnCPUs)
	}
	if d := c2.Own.BusySeconds - c.Own.BusySeconds; !near(d/5, *r.OwnCPUs.Busy/100) {
		t.Errorf("own busy seconds rose by %v over 5 s of cpu0 (%v); Read shows %v %%", d, d/5, *r.OwnCPUs.Busy)
	}
}

// processProc is /proc under a test root with a given affinity and a
// process CPU time the test sets.
type processProc struct {
	procRoot
	cpus []int
	used *time.Duration
}

func (p processProc) affinity() ([]int, error) { return p.cpus, nil }

func (p processProc) process() (time.Duration, time.Duration, error) { return *p.used, 0, nil }

// TestCountersInterference reads the own CPUs' interference and steal
// from /proc/stat's ticks (10 ms each) and the process's CPU time: busy
// minus the process, steal summed over the own CPUs alone; and a span's
// figures from two reads, with a dip below the process's time held (the
// Sampler) or clamped at 0 (Since).
func TestCountersInterference(t *testing.T) {
	root := t.TempDir()
	stat := func(cpu0, cpu1 string) {
		t.Helper()
		// The "cpu" line is not read for the own CPUs: keep it simple.
		b := "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 " + cpu0 + "\ncpu1 " + cpu1 + "\n"
		if err := os.WriteFile(filepath.Join(root, "stat"), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	//          user nice system idle iowait irq softirq steal
	stat("100 0 50 800 50 0 0 20 0 0", "500 0 500 0 0 0 0 400 0 0")
	proc := 1200 * time.Millisecond
	s := newSampler(processProc{procRoot(root), []int{0}, &proc})
	c, err := s.Counters()
	if err != nil || c.Own == nil {
		t.Fatalf("Counters() = %+v, %v; want own CPUs", c, err)
	}
	// cpu0: busy 100+50+20 = 170 ticks = 1.7 s, of which the process 1.2 s
	// and steal 0.2 s; cpu1's 400 ticks of steal are not the process's.
	if o := c.Own; !near(o.BusySeconds, 1.7) || o.InterferenceSeconds == nil || !near(*o.InterferenceSeconds, 0.5) ||
		o.StealSeconds == nil || !near(*o.StealSeconds, 0.2) {
		t.Fatalf("Own = %+v; want busy 1.7 s, interference 0.5 s, steal 0.2 s", ownText(o))
	}

	// 5 s later on cpu0: +200 user, +10 system, +40 steal, +250 idle;
	// the process ran 1.6 s of the 2.5 s busy: 0.9 s interference.
	stat("300 0 60 1050 50 0 0 60 0 0", "500 0 500 0 0 0 0 400 0 0")
	proc += 1600 * time.Millisecond
	c2, err := s.Counters()
	if err != nil || c2.Own == nil {
		t.Fatalf("Counters() = %+v, %v; want own CPUs", c2, err)
	}
	sp, ok := c2.Own.Since(*c.Own)
	if !ok || !near(sp.BusySeconds, 2.5) || !near(sp.InterferenceSeconds, 0.9) || sp.StealSeconds == nil || !near(*sp.StealSeconds, 0.4) || sp.Clamped {
		t.Errorf("Since = %+v (%v); want busy 2.5 s, interference 0.9 s, steal 0.4 s", sp, ok)
	}
	// The sampler's window is the same 5 s of cpu0 (500 ticks): busy 50 %
	// of it, interference 18 % of a core, steal 8 %.
	s.Sample()
	if o := s.Read().OwnCPUs; o == nil || optText(o.Busy) != "50" || optText(o.Interference) != "18" || optText(o.Steal) != "8" ||
		!near(*o.InterferenceSecondsTotal, 1.4) || !near(*o.StealSecondsTotal, 0.6) {
		t.Errorf("Read().OwnCPUs = %+v; want busy 50, interference 18, steal 8, totals 1.4 s and 0.6 s", o)
	}

	// The process's time rose by 30 ms and the ticks by none (they were
	// not yet charged): the raw difference dips by 0.03 s. The Sampler
	// holds its counter; a span over the raw reads is clamped at 0.
	proc += 30 * time.Millisecond
	c3, err := s.Counters()
	if err != nil || c3.Own == nil || c3.Own.InterferenceSeconds == nil {
		t.Fatalf("Counters() = %+v, %v; want own CPUs", c3, err)
	}
	if got, want := *c3.Own.InterferenceSeconds, *c2.Own.InterferenceSeconds; got != want {
		t.Errorf("interference after a dip = %v; want it held at %v", got, want)
	}
	raw, err := readCounters(processProc{procRoot(root), []int{0}, &proc})
	if err != nil || raw.Own == nil {
		t.Fatal(raw, err)
	}
	if sp, ok := raw.Own.Since(*c2.Own); !ok || sp.InterferenceSeconds != 0 || !sp.Clamped {
		t.Errorf("Since over a dip = %+v (%v); want 0, clamped", sp, ok)
	}
	// Other CPUs (the affinity changed): no span.
	other, _ := readCounters(processProc{procRoot(root), []int{1}, &proc})
	if sp, ok := other.Own.Since(*c.Own); ok {
		t.Errorf("Since across CPUs 0 and 1 = %+v, true; want false", sp)
	}

	// A Sampler whose process moves to cpu1 (raw 10.0 - 2.83 = 7.17 s,
	// far above cpu0's 1.4 s): its counter goes on from 1.4 s, and rises
	// with cpu1's busy time from there.
	moved := processProc{procRoot(root), []int{0}, &proc}
	s2 := newSampler(&moved)
	first, _ := s2.Counters()
	moved.cpus = []int{1}
	c4, _ := s2.Counters()
	if got, want := *c4.Own.InterferenceSeconds, *first.Own.InterferenceSeconds; !near(got, want) {
		t.Errorf("interference after moving to cpu1 = %v; want it to go on from %v", got, want)
	}
	stat("300 0 60 1050 50 0 0 60 0 0", "600 0 500 0 0 0 0 400 0 0")
	c5, _ := s2.Counters()
	if d := *c5.Own.InterferenceSeconds - *c4.Own.InterferenceSeconds; !near(d, 1) {
		t.Errorf("interference rose by %v with 1 s more busy on cpu1; want 1", d)
	}
}

// TestCountersAbsent: a platform without I/O wait, steal or affinity
// (FakePlatform, as gopsutil on Windows) has no such modes; its own CPUs
// are all the machine's, with the interference but no steal.
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
	// Each CPU has half the ticks, rounded down: 12 user and 7 system, so
	// busy 38 ticks of both = 0.38 s; the process has used none.
	if o := c.Own; o == nil || !o.AffinityUnknown || len(o.CPUs) != 2 || !near(o.BusySeconds, 0.38) ||
		o.InterferenceSeconds == nil || !near(*o.InterferenceSeconds, 0.38) || o.StealSeconds != nil {
		t.Errorf("Counters().Own = %s; want all CPUs, busy and interference 0.38 s, no steal", ownText(o))
	}
}

func ownText(o *OwnCounters) string {
	if o == nil {
		return "nil"
	}
	opt := func(p *float64) string {
		if p == nil {
			return "absent"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("cpus %v (unknown %v) busy %v interference %s steal %s", o.CPUs, o.AffinityUnknown, o.BusySeconds, opt(o.InterferenceSeconds), opt(o.StealSeconds))
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
