package loadtest

import (
	"sync"
	"time"
)

// An alarm wakes one waiting goroutine at a set time. wait is called by
// one goroutine; set and close by any, and set after close does nothing.
type alarm interface {
	set(d time.Duration) // fire once after d (at once when d <= 0), replacing any earlier setting
	wait() bool          // block until the alarm fires (true) or is closed (false); may return early
	close()              // idempotent
}

// timerAlarm is the portable alarm: a runtime timer.
type timerAlarm struct {
	tm   *time.Timer
	stop chan struct{}
	once sync.Once
}

func newTimerAlarm() *timerAlarm {
	a := &timerAlarm{tm: time.NewTimer(time.Hour), stop: make(chan struct{})}
	a.tm.Stop()
	return a
}

func (a *timerAlarm) set(d time.Duration) { a.tm.Reset(d) }

func (a *timerAlarm) wait() bool {
	select {
	case <-a.tm.C:
		return true
	case <-a.stop:
		return false
	}
}

func (a *timerAlarm) close() {
	a.once.Do(func() {
		a.tm.Stop()
		close(a.stop)
	})
}
