// Package occupancy integrates a count of things in a state over time: the
// busy workers, the queued requests, the connections held, the acquires
// waiting.
//
//	var busy occupancy.Gauge
//	s := busy.Enter()
//	// ... the work
//	busy.Leave(s)
//	n, total := busy.Read() // in the state now; state-seconds since start
//
// The integral (state-seconds) is a counter, so the mean count over any
// span is its increase divided by the span's length (Little's law). A gauge
// sampled now and then cannot stand in for it: a sampler goroutine inside a
// server pinned to one core runs only between requests, when none is busy,
// and reads 0 at 100 % CPU. The integral includes the time of the entries
// still in the state when it is read, so a reading during a long wait is
// right too.
//
// Now is also the board's one clock: every wait the board reports (the
// worker queue, the connection acquire, the SQL statements, the database's
// network wait, the request until its response is written) is the
// difference of two Stamps, taken once where the wait happens, so that
// figures read from different places are differences on one clock.
package occupancy

import (
	"sync"
	"time"
)

// epoch is the origin of the monotonic clock readings the Gauge keeps.
var epoch = time.Now()

// now is the monotonic time since epoch in nanoseconds.
func now() int64 { return int64(time.Since(epoch)) }

// A Gauge counts the entries in a state and integrates that count over time.
// The zero Gauge is empty and ready to use. It is safe for concurrent use.
type Gauge struct {
	mu       sync.Mutex
	n        int64 // entries in the state now
	startSum int64 // sum of their entry times (ns since epoch)
	done     int64 // ns spent in the state by entries that left
}

// A Stamp is the time an entry entered the state, for Leave.
type Stamp int64

// Now returns the current time as a Stamp, for EnterAt and LeaveAt: one
// clock reading can end one state and begin the next. It reads the
// monotonic clock only, where time.Now reads the wall clock too.
func Now() Stamp { return Stamp(now()) }

// Since returns the time from s until now.
func Since(s Stamp) time.Duration { return time.Duration(now() - int64(s)) }

// Sub returns the time from s until t.
func (t Stamp) Sub(s Stamp) time.Duration { return time.Duration(t - s) }

// Time returns s as a time.Time: the wall time of the clock's origin plus
// the monotonic time since, with a monotonic reading, so that Sub between
// two such times is exactly the difference of their Stamps and their Unix
// times differ by it too. A step of the wall clock after the process
// started does not show in it.
func (s Stamp) Time() time.Time { return epoch.Add(time.Duration(s)) }

// Enter records one entry entering the state.
func (g *Gauge) Enter() Stamp { return g.EnterAt(Now()) }

// EnterAt records one entry entering the state at t (from Now), and
// returns t.
func (g *Gauge) EnterAt(t Stamp) Stamp {
	g.mu.Lock()
	g.n++
	g.startSum += int64(t)
	g.mu.Unlock()
	return t
}

// Leave records the entry that entered at s leaving the state now, and
// returns how long it was in it.
func (g *Gauge) Leave(s Stamp) time.Duration { return g.LeaveAt(s, Stamp(now())) }

// LeaveAt records the entry that entered at s leaving the state at at (a
// Stamp from another Gauge's Enter, when the entry passed straight from one
// state to the other), and returns how long it was in it.
func (g *Gauge) LeaveAt(s, at Stamp) time.Duration {
	d := int64(at) - int64(s)
	g.mu.Lock()
	g.n--
	g.startSum -= int64(s)
	g.done += d
	g.mu.Unlock()
	return time.Duration(d)
}

// Read returns the entries in the state now and the total time spent in it
// so far by all entries, those still in it included.
func (g *Gauge) Read() (n int64, total time.Duration) {
	t := now()
	g.mu.Lock()
	n = g.n
	total = time.Duration(g.done + g.n*t - g.startSum)
	g.mu.Unlock()
	return n, total
}
