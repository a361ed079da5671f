package driverkit

import (
	"context"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"bbslab/occupancy"
)

// Go's timers wake a processor that has nothing else to run only when the
// netpoller's epoll_wait returns, and its timeout is in whole milliseconds:
// on a server pinned to one core whose requests all wait, a time.Sleep of
// a few hundred µs takes about a whole millisecond (docs/measurements.md,
// "The database at a distance"). A real round trip ends when
// the reply makes its socket readable, which wakes epoll_wait at once. So
// the wait is a timerfd in the netpoller: the kernel's high-resolution
// timer makes the descriptor readable when it is due, and the waiting goroutine is parked off the CPU
// like one reading a socket.

// timerFD is a non-blocking timerfd registered with the netpoller.
type timerFD struct {
	fd int
	f  *os.File
}

// timerFDs keeps disarmed timerfds for reuse: a wait costs two system
// calls (arm, read) instead of five.
var timerFDs sync.Pool

func getTimerFD() (*timerFD, error) {
	if t, ok := timerFDs.Get().(*timerFD); ok {
		return t, nil
	}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &timerFD{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}, nil
}

// wait waits d from start (now) or until ctx ends, on a timerfd.
func wait(ctx context.Context, start occupancy.Stamp, d time.Duration) error {
	t, err := getTimerFD()
	if err != nil {
		return timerWait(ctx, d) // out of descriptors: wait the coarse way
	}
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(t.fd, 0, &its, nil); err != nil {
		t.f.Close()
		return timerWait(ctx, d)
	}
	// A context that ends sets a read deadline in the past, which wakes
	// the read.
	stop := context.AfterFunc(ctx, func() { t.f.SetReadDeadline(time.Now()) })
	var buf [8]byte
	_, err = t.f.Read(buf[:])
	if stop() && err == nil {
		timerFDs.Put(t) // fired once and read: disarmed
		return nil
	}
	// The context ended (its deadline is set on the descriptor, or about
	// to be, and the timer may still be armed), or the read failed: do not
	// reuse the descriptor.
	t.f.Close()
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return timerWait(ctx, d-occupancy.Since(start))
}
