package driverkit

import (
	"sync/atomic"
	"time"

	"bbslab/entity"
	"bbslab/occupancy"
)

// A Meter counts a store's Acquire calls as they happen, which the pools' own
// statistics do not (they add waits only once an acquire ends), and
// integrates the acquires waiting and the connections held over time
// (occupancy.Gauge), so that their mean over any span is exact.
type Meter struct {
	acquires    atomic.Int64 // completed
	waitNs      atomic.Int64 // total time in completed acquires
	validations atomic.Int64
	validateNs  atomic.Int64 // total time validating, part of waitNs
	waiting     occupancy.Gauge
	held        occupancy.Gauge // connections handed out by Acquire
}

// Start records an acquire beginning.
func (m *Meter) Start() occupancy.Stamp { return m.waiting.Enter() }

// Done records the end of an acquire that began at t, and returns how long
// it waited, and, when it got a connection, the Stamp the connection is
// held from until release. This is where an acquire is timed: the Conn
// (ConnMeter.AcquireWait) and a failed acquire's entity.AcquireError carry
// the wait returned here, the counters add the same figure.
//
// The wait's end and the hold's start are one clock reading: the
// connection is held from the moment the wait ended.
func (m *Meter) Done(t occupancy.Stamp, ok bool) (held occupancy.Stamp, wait time.Duration) {
	at := occupancy.Now()
	wait = m.waiting.LeaveAt(t, at)
	if !ok {
		return 0, wait
	}
	m.acquires.Add(1)
	m.waitNs.Add(int64(wait))
	return m.held.EnterAt(at), wait
}

// Validated records one validation on borrow that took d, inside an
// acquire.
func (m *Meter) Validated(d time.Duration) {
	m.validations.Add(1)
	m.validateNs.Add(int64(d))
}

// Release records a connection handed out at t given back.
func (m *Meter) Release(t occupancy.Stamp) { m.held.Leave(t) }

// Fill copies the counters into s.
func (m *Meter) Fill(s *entity.PoolStats) {
	n, waiting := m.waiting.Read()
	s.Waiting = int(n)
	s.WaitingTime = waiting
	_, s.InUseTime = m.held.Read()
	s.Acquires = m.acquires.Load()
	s.AcquireWait = time.Duration(m.waitNs.Load())
	s.Validations = m.validations.Load()
	s.ValidationTime = time.Duration(m.validateNs.Load())
}
