// Package disturb takes a machine's CPUs on a schedule you can replay, so
// that an instructor can show an experiment catching the disturbance and
// measuring its points again, and tests can replay one:
//
//	go run ./cmd/loadtest disturb -cpu 0 -busy 3s -every 10s -for 5m
//	go run ./cmd/loadtest disturb -cpu 0 -random -seed 7 -for 5m
package disturb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"bbslab/internal/child"
)

// A Schedule says when the bursts come.
type Schedule struct {
	Busy   time.Duration `flag:"busy" default:"3s" help:"a burst's length (with -random, its mean)"`
	Every  time.Duration `flag:"every" default:"10s" help:"the period of the bursts (with -random, its mean)"`
	For    time.Duration `flag:"for" default:"5m" help:"how long the schedule runs"`
	Delay  time.Duration `flag:"delay" help:"wait before the first burst"`
	Random bool          `flag:"random" help:"draw the bursts' lengths and gaps from -seed (the same seed replays the same bursts)"`
	Seed   uint64        `flag:"seed" default:"1" help:"the seed of -random"`
}

// Check says what is wrong with s, naming the flag that sets it.
func (s Schedule) Check() error {
	var errs []error
	if s.Busy <= 0 {
		errs = append(errs, fmt.Errorf("-busy %v: want a positive length", s.Busy))
	}
	if s.Every < s.Busy {
		errs = append(errs, fmt.Errorf("-every %v: want at least -busy (%v)", s.Every, s.Busy))
	}
	if s.For <= 0 || s.For > 24*time.Hour {
		errs = append(errs, fmt.Errorf("-for %v: want a positive time of at most 24h", s.For))
	}
	if s.Delay < 0 || s.Delay >= s.For && s.For > 0 {
		errs = append(errs, fmt.Errorf("-delay %v: want 0 or more, less than -for (%v)", s.Delay, s.For))
	}
	return errors.Join(errs...)
}

// A Burst is one busy span, its start counted from the schedule's.
type Burst struct {
	Start, Length time.Duration
}

// Bursts returns the schedule's bursts in order, each ending by For.
func (s Schedule) Bursts() []Burst {
	var out []Burst
	rng := rand.New(rand.NewPCG(s.Seed, s.Seed^0x9e3779b97f4a7c15))
	at := s.Delay
	for at < s.For && s.Busy > 0 {
		length, gap := s.Busy, s.Every-s.Busy
		if s.Random {
			// Uniform around the means: on average Busy of every Every.
			length = s.Busy/2 + time.Duration(rng.Int64N(int64(s.Busy)+1))
			if gap > 0 {
				gap = time.Duration(rng.Int64N(2*int64(gap) + 1))
			}
		}
		if gap <= 0 && !s.Random {
			length = s.For - at // busy all the time: one burst to the end
		}
		length = min(length, s.For-at)
		out = append(out, Burst{Start: at, Length: length})
		at += length + gap
	}
	return out
}

// A Load is what a burst runs.
type Load interface {
	Start() error
	Stop()
	// String says what it takes, e.g. "CPU 0".
	String() string
}

// Run plays s's bursts with load from now, writing each burst's start and
// end to w, until the schedule is over or ctx ends.
func Run(ctx context.Context, s Schedule, load Load, w io.Writer) error {
	if err := s.Check(); err != nil {
		return err
	}
	bursts := s.Bursts()
	t0 := time.Now()
	fmt.Fprintf(w, "%s disturb %s: %s\n", stamp(t0), load, s.text(len(bursts)))
	for i, b := range bursts {
		if err := sleepUntil(ctx, t0.Add(b.Start)); err != nil {
			return err
		}
		if err := load.Start(); err != nil {
			return err
		}
		start := time.Now()
		fmt.Fprintf(w, "%s burst %d/%d: %s busy for %v\n", stamp(start), i+1, len(bursts), load, b.Length)
		err := sleepUntil(ctx, start.Add(b.Length))
		load.Stop()
		end := time.Now()
		fmt.Fprintf(w, "%s burst %d/%d: ended after %.2f s\n", stamp(end), i+1, len(bursts), end.Sub(start).Seconds())
		if err != nil {
			return err
		}
	}
	if err := sleepUntil(ctx, t0.Add(s.For)); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s disturb: done\n", stamp(time.Now()))
	return nil
}

// text describes the schedule in words.
func (s Schedule) text(n int) string {
	how := fmt.Sprintf("busy %v of every %v", s.Busy, s.Every)
	if s.Random {
		how = fmt.Sprintf("random bursts of %v-%v, busy %v of every %v on average (seed %d)", s.Busy/2, s.Busy*3/2, s.Busy, s.Every, s.Seed)
	}
	if s.Delay > 0 {
		how += fmt.Sprintf(", the first after %v", s.Delay)
	}
	return fmt.Sprintf("%s for %v: %d bursts", how, s.For, n)
}

func stamp(t time.Time) string { return t.UTC().Format("15:04:05.000") }

func sleepUntil(ctx context.Context, t time.Time) error {
	wait, cancel := context.WithDeadline(ctx, t)
	defer cancel()
	<-wait.Done()
	return ctx.Err()
}

// CPU returns a Load that keeps cpus busy, pinned where the system allows.
func CPU(cpus []int) *CPULoad { return &CPULoad{cpus: cpus} }

// CPULoad is CPU's Load.
type CPULoad struct {
	cpus      []int
	stop      atomic.Bool
	wg        sync.WaitGroup
	pinned    atomic.Int32
	notPinned atomic.Pointer[error]
}

// Start starts one spinner per CPU.
func (l *CPULoad) Start() error {
	l.stop.Store(false)
	l.pinned.Store(0)
	l.notPinned.Store(nil)
	for _, c := range l.cpus {
		l.wg.Add(1)
		go l.spin(c)
	}
	return nil
}

func (l *CPULoad) spin(cpu int) {
	defer l.wg.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	restore, err := child.PinThread([]int{cpu})
	if err != nil {
		l.notPinned.Store(&err)
	} else {
		l.pinned.Add(1)
		defer restore()
	}
	x := uint64(cpu) + 1
	for !l.stop.Load() {
		for range 10_000 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	sink.Store(x)
}

// sink keeps the spinners' work from being optimised away.
var sink atomic.Uint64

// Stop ends the spinners and waits for them.
func (l *CPULoad) Stop() {
	l.stop.Store(true)
	l.wg.Wait()
}

// Pinned reports whether the last burst's spinners were pinned, and why not.
func (l *CPULoad) Pinned() (bool, error) {
	var why error
	if p := l.notPinned.Load(); p != nil {
		why = *p
	}
	return int(l.pinned.Load()) == len(l.cpus), why
}

// String names the CPUs.
func (l *CPULoad) String() string {
	s := strings.ReplaceAll(strings.Trim(fmt.Sprint(l.cpus), "[]"), " ", ",")
	if len(l.cpus) == 1 {
		return "CPU " + s
	}
	return "CPUs " + s
}
