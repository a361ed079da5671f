package loadtest

import (
	"math"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// timerfdAlarm is a timerfd in the poller: it wakes within µs, a runtime timer at the next ms.
type timerfdAlarm struct {
	f      *os.File
	rc     syscall.RawConn
	fd     int
	base   time.Time
	due    atomic.Int64 // nanoseconds since base
	waited bool
	waitFn func(uintptr) bool
	mu     sync.Mutex // orders set against close: the fd number must not be reused under set
	closed bool
}

// newAlarm returns a timerfd alarm, or the portable one.
func newAlarm() alarm {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return newTimerAlarm()
	}
	f := os.NewFile(uintptr(fd), "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return newTimerAlarm()
	}
	a := &timerfdAlarm{f: f, rc: rc, fd: fd, base: time.Now()}
	a.due.Store(math.MaxInt64)
	// The timerfd is never read: each expiry is a poller edge, lost if it came
	// before the wait, so the first call checks the time itself.
	a.waitFn = func(uintptr) bool {
		if !a.waited {
			a.waited = true
			return a.fired()
		}
		a.fired()
		return true
	}
	return a
}

func (a *timerfdAlarm) set(d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	if d <= 0 {
		d = 1 // zero would disarm
	}
	a.due.Store(int64(time.Since(a.base) + d)) // before the timer can fire
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	// Raw: the runtime's syscall entry would wake its idle monitor thread.
	syscall.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(a.fd), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
}

// fired reports whether the alarm's time has come, and if so clears it.
func (a *timerfdAlarm) fired() bool {
	d := a.due.Load()
	if int64(time.Since(a.base)) < d {
		return false
	}
	a.due.CompareAndSwap(d, math.MaxInt64)
	return true
}

func (a *timerfdAlarm) wait() bool {
	a.waited = false
	return a.rc.Read(a.waitFn) == nil
}

func (a *timerfdAlarm) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.f.Close()
}
