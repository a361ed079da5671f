package disturb

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/machine"
)

func TestBurstsPeriodic(t *testing.T) {
	s := Schedule{Busy: 3 * time.Second, Every: 10 * time.Second, For: 25 * time.Second}
	want := []Burst{{0, 3 * time.Second}, {10 * time.Second, 3 * time.Second}, {20 * time.Second, 3 * time.Second}}
	if got := s.Bursts(); !slices.Equal(got, want) {
		t.Errorf("Bursts(3s every 10s for 25s) = %v; want %v", got, want)
	}
	s.For, s.Delay = 21*time.Second, 5*time.Second
	want = []Burst{{5 * time.Second, 3 * time.Second}, {15 * time.Second, 3 * time.Second}}
	if got := s.Bursts(); !slices.Equal(got, want) {
		t.Errorf("Bursts(3s every 10s for 21s after 5s) = %v; want %v", got, want)
	}
	s = Schedule{Busy: 3 * time.Second, Every: 10 * time.Second, For: 12 * time.Second}
	if got := s.Bursts(); len(got) != 2 || got[1] != (Burst{10 * time.Second, 2 * time.Second}) {
		t.Errorf("Bursts(for 12s) = %v; want the last burst cut to 2s at the end", got)
	}
	s = Schedule{Busy: time.Minute, Every: time.Minute, For: 5 * time.Minute}
	if got := s.Bursts(); !slices.Equal(got, []Burst{{0, 5 * time.Minute}}) {
		t.Errorf("Bursts(busy all the time) = %v; want one burst from start to end", got)
	}
}

func TestBurstsRandom(t *testing.T) {
	s := Schedule{Busy: 3 * time.Second, Every: 10 * time.Second, For: 3 * time.Hour, Random: true, Seed: 7}
	a, b := s.Bursts(), s.Bursts()
	if !slices.Equal(a, b) {
		t.Fatalf("the same seed gave other bursts")
	}
	s.Seed = 8
	if slices.Equal(a, s.Bursts()) {
		t.Errorf("seeds 7 and 8 gave the same bursts")
	}
	var busy time.Duration
	for i, x := range a {
		busy += x.Length
		if x.Length < s.Busy/2 || x.Length > s.Busy*3/2 || x.Start+x.Length > s.For || i > 0 && x.Start < a[i-1].Start+a[i-1].Length {
			t.Fatalf("burst %d %v: want 1.5-4.5 s, within the schedule, after the one before", i, x)
		}
	}
	// Over three hours, about 3 s of every 10 (1,080 bursts on average).
	if share := busy.Seconds() / s.For.Seconds(); share < 0.27 || share > 0.33 {
		t.Errorf("random bursts busy %.3f of the time; want about 0.3, as the periodic schedule", share)
	}
}

func TestScheduleChecked(t *testing.T) {
	for _, tt := range []struct {
		s    Schedule
		want string
	}{
		{Schedule{Busy: 0, Every: time.Second, For: time.Minute}, "-busy 0s"},
		{Schedule{Busy: 2 * time.Second, Every: time.Second, For: time.Minute}, "-every 1s: want at least -busy (2s)"},
		{Schedule{Busy: time.Second, Every: time.Second, For: 0}, "-for 0s"},
		{Schedule{Busy: time.Second, Every: time.Second, For: time.Minute, Delay: time.Minute}, "-delay 1m0s"},
	} {
		if err := tt.s.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%+v) = %v; want %q", tt.s, err, tt.want)
		}
	}
}

// recorder is a Load that records its bursts.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) Start() error {
	r.mu.Lock()
	r.events = append(r.events, "start")
	r.mu.Unlock()
	return nil
}
func (r *recorder) Stop() { r.mu.Lock(); r.events = append(r.events, "stop"); r.mu.Unlock() }
func (r *recorder) String() string {
	return "recorder"
}

func TestRunPlaysTheBursts(t *testing.T) {
	var out strings.Builder
	rec := &recorder{}
	s := Schedule{Busy: 20 * time.Millisecond, Every: 50 * time.Millisecond, For: 130 * time.Millisecond}
	if err := Run(context.Background(), s, rec, &out); err != nil {
		t.Fatal(err)
	}
	if want := []string{"start", "stop", "start", "stop", "start", "stop"}; !slices.Equal(rec.events, want) {
		t.Errorf("load events %v; want %v", rec.events, want)
	}
	for _, want := range []string{"disturb recorder: busy 20ms of every 50ms for 130ms: 3 bursts", "burst 1/3: recorder busy for 20ms", "burst 3/3: ended after", "disturb: done"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	// Interrupted in a burst: the load is stopped and the error is ctx's.
	rec = &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	err := Run(ctx, Schedule{Busy: time.Hour, Every: time.Hour, For: time.Hour}, rec, &out)
	if !errors.Is(err, context.Canceled) || !slices.Equal(rec.events, []string{"start", "stop"}) {
		t.Errorf("interrupted: %v, events %v; want context.Canceled with the burst stopped", err, rec.events)
	}
}

// TestCPULoadTakesTheCPU checks that a burst of CPU uses this process's
// CPU and, on Linux, pins its spinner. The CPU time asserted is a tenth
// of the burst: a shared machine gives a spinning thread its turn, so it
// can fail only when the load does not spin at all.
func TestCPULoadTakesTheCPU(t *testing.T) {
	l := CPU([]int{0})
	before, ok := machine.ProcessCPUTime()
	if !ok {
		t.Skip("no process CPU time on this OS")
	}
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	l.Stop()
	after, _ := machine.ProcessCPUTime()
	if used := after - before; used < 30*time.Millisecond {
		t.Errorf("a 300 ms burst used %v of CPU; want it spinning", used)
	}
	pinned, why := l.Pinned()
	if runtime.GOOS == "linux" && !pinned {
		t.Errorf("the spinner was not pinned to CPU 0 on Linux: %v", why)
	}
	if l.String() != "CPU 0" || CPU([]int{0, 1}).String() != "CPUs 0,1" {
		t.Errorf("names: %q, %q", l.String(), CPU([]int{0, 1}).String())
	}
}
