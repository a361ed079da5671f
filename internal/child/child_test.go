package child

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHelperProcess is not a test: run as a child with CHILD_HELPER set,
// it does what the variable says and exits.
func TestHelperProcess(t *testing.T) {
	switch os.Getenv("CHILD_HELPER") {
	case "":
		t.Skip("helper process for the child tests")
	case "gomaxprocs":
		fmt.Printf("GOMAXPROCS=%d\n", runtime.GOMAXPROCS(0))
		os.Exit(0)
	case "announce":
		fmt.Println("starting")
		fmt.Println("addr: http://127.0.0.1:1234/ ")
		time.Sleep(time.Hour)
	case "fail":
		fmt.Fprintln(os.Stderr, "boom: no database")
		os.Exit(3)
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(time.Hour)
	}
	os.Exit(0)
}

// helper returns the Spec of a helper child doing mode.
func helper(mode string) Spec {
	return Spec{Argv: []string{os.Args[0], "-test.run=^TestHelperProcess$"}, Env: []string{"CHILD_HELPER=" + mode}}
}

var gomaxprocsLine = regexp.MustCompile(`GOMAXPROCS=(\d+)`)

// runGOMAXPROCS starts a helper held by s and returns the GOMAXPROCS it
// printed.
func runGOMAXPROCS(t *testing.T, s Spec) (*Process, string) {
	t.Helper()
	var out lockedBuffer
	s.Stdout = &out
	p, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := gomaxprocsLine.FindStringSubmatch(out.tail(1000))
	if m == nil {
		t.Fatalf("the helper did not say its GOMAXPROCS: %q", out.tail(1000))
	}
	return p, m[1]
}

// TestStartCapsGOMAXPROCS checks that a child that is not pinned, because
// pinning is off or fails, runs with GOMAXPROCS = the number of its CPUs,
// unless its Env sets GOMAXPROCS, and that its Hold says which.
func TestStartCapsGOMAXPROCS(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cpus    []int
		pin     bool
		env     []string
		want    string
		fromEnv bool
	}{
		{"pin off", []int{0}, false, nil, "1", false},
		{"pin off, two CPUs", []int{0, 1, 1}, false, nil, "2", false},
		{"pin off, Env's own", []int{0}, false, []string{"GOMAXPROCS=3"}, "3", true},
		// No system gives this process CPU 1023: pinning fails (or
		// affinity is not available at all) and the cap takes over.
		{"pinning fails", []int{1023}, true, nil, "1", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := helper("gomaxprocs")
			s.Env = append(s.Env, tt.env...)
			s.CPUs, s.Pin = tt.cpus, tt.pin
			p, got := runGOMAXPROCS(t, s)
			if got != tt.want {
				t.Errorf("Start(cpus %v, pin %v, env %q): the child's GOMAXPROCS = %s; want %s", tt.cpus, tt.pin, tt.env, got, tt.want)
			}
			h := p.Hold
			if h.Pinned || h.NotPinned == nil || h.GOMAXPROCS != tt.want || h.FromEnv != tt.fromEnv {
				t.Errorf("Start(cpus %v, pin %v, env %q).Hold = %+v; want not pinned, with a reason, GOMAXPROCS %s, FromEnv %v", tt.cpus, tt.pin, tt.env, h, tt.want, tt.fromEnv)
			}
			if !tt.pin && !errors.Is(h.NotPinned, ErrPinOff) {
				t.Errorf("Start(pin off).Hold.NotPinned = %v; want ErrPinOff", h.NotPinned)
			}
		})
	}
}

// TestStartPins checks that a pinned child sees only its CPU: its Go
// runtime sets GOMAXPROCS to 1.
func TestStartPins(t *testing.T) {
	if err := CanPin(0); err != nil {
		t.Skipf("cannot pin here: %v", err)
	}
	s := helper("gomaxprocs")
	s.CPUs, s.Pin = []int{0}, true
	p, got := runGOMAXPROCS(t, s)
	if !p.Hold.Pinned || p.Hold.NotPinned != nil || got != "1" {
		t.Errorf("Start(cpus [0], pin): Hold %+v, the child's GOMAXPROCS %s; want pinned and 1", p.Hold, got)
	}
}

// TestStartNoCPUs checks that a child without CPUs is left alone.
func TestStartNoCPUs(t *testing.T) {
	p, err := Start(helper("gomaxprocs"))
	if err != nil {
		t.Fatal(err)
	}
	p.Wait(context.Background())
	if h := p.Hold; h.Pinned || h.NotPinned != nil || h.GOMAXPROCS != "" {
		t.Errorf("Start(no CPUs).Hold = %+v; want nothing done", h)
	}
}

// TestHoldSelfCapsGOMAXPROCS checks that this process, not pinned, runs
// with GOMAXPROCS = the number of its CPUs until restored.
func TestHoldSelfCapsGOMAXPROCS(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	h, restore := HoldSelf([]int{1}, false)
	during := runtime.GOMAXPROCS(0)
	restore()
	if during != 1 || h.GOMAXPROCS != "1" || !errors.Is(h.NotPinned, ErrPinOff) {
		t.Errorf("HoldSelf([1], pin off) = %+v, GOMAXPROCS %d; want not pinned (pinning is off) and 1", h, during)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("after restore GOMAXPROCS = %d; want %d as before", after, before)
	}
	if h, _ := HoldSelf(nil, true); h.Pinned || h.NotPinned != nil || runtime.GOMAXPROCS(0) != before {
		t.Errorf("HoldSelf(no CPUs) = %+v, GOMAXPROCS %d; want nothing done (%d)", h, runtime.GOMAXPROCS(0), before)
	}
}

// TestStartAnnounced checks that the announced line is found among
// others, and that a child that exits first is an error holding its
// standard error.
func TestStartAnnounced(t *testing.T) {
	p, line, err := StartAnnounced(helper("announce"), "addr: ", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if line != "http://127.0.0.1:1234/" {
		t.Errorf("StartAnnounced(prefix %q) = %q; want the rest of the line, trimmed", "addr: ", line)
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Errorf("Stop: %v", err)
	}
	select {
	case <-p.Exited():
	default:
		t.Error("Stop returned before the child exited")
	}

	_, _, err = StartAnnounced(helper("fail"), "addr: ", time.Minute)
	if err == nil || !strings.Contains(err.Error(), "boom: no database") || !strings.Contains(err.Error(), `before printing "addr: "`) {
		t.Errorf("StartAnnounced(a child that fails) = %v; want an error with its standard error", err)
	}
}

// TestStopKills checks that a child that ignores SIGTERM is killed after
// the timeout and Stop says so.
func TestStopKills(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	for _, group := range []bool{false, true} {
		s := helper("ignore-term")
		s.OwnGroup = group
		p, _, err := StartAnnounced(s, "ready", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Stop(200 * time.Millisecond); err == nil || !strings.Contains(err.Error(), "killed") {
			t.Errorf("Stop(a child ignoring SIGTERM, own group %v) = %v; want an error saying it was killed", group, err)
		}
		if err := p.Stop(time.Second); err != nil {
			t.Errorf("a second Stop = %v; want nil", err)
		}
	}
}

// TestWaitKillsOnCancel checks that Wait kills the child when its context
// ends.
func TestWaitKillsOnCancel(t *testing.T) {
	p, _, err := StartAnnounced(helper("announce"), "addr: ", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait(a cancelled context) = %v; want context.Canceled", err)
	}
	select {
	case <-p.Exited():
	default:
		t.Error("Wait returned before the child exited")
	}
}

// TestCPUTimeAndUsage reads a running child's CPU time and, once it has
// exited, its usage.
func TestCPUTimeAndUsage(t *testing.T) {
	p, _, err := StartAnnounced(helper("announce"), "addr: ", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := p.CPUTime(); err != nil || d < 0 {
		t.Errorf("CPUTime() of a running child = %v, %v; want a time", d, err)
	}
	p.Stop(10 * time.Second)
	u := p.Usage()
	if runtime.GOOS != "windows" && (u.PeakRSSBytes == nil || *u.PeakRSSBytes <= 0) {
		t.Errorf("Usage() of an exited child = %+v; want its peak RSS", u)
	}
	if _, err := p.CPUTime(); err == nil && runtime.GOOS == "linux" {
		t.Error("CPUTime() of a child that has exited and been waited for = nil error; want one")
	}
}

// TestCanPin checks that a CPU no system gives this process cannot be
// pinned.
func TestCanPin(t *testing.T) {
	if err := CanPin(1023); err == nil {
		t.Error("CanPin(1023) = nil; want an error")
	}
	if err := CanPin(-1); err == nil {
		t.Error("CanPin(-1) = nil; want an error")
	}
}

func TestCPUList(t *testing.T) {
	if got := CPUList([]int{0, 2}); got != "0,2" {
		t.Errorf("CPUList([0 2]) = %q; want \"0,2\"", got)
	}
}
