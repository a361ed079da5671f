package driverkit

import (
	"context"
	"time"

	"bbslab/occupancy"
)

// A ConnMeter is what one Conn measured for whoever holds it: the wait of
// the Acquire that handed it out, its statements' time and the part of it
// waited on the network. Each figure is timed once, here or in the Meter
// and the Network, on occupancy's clock; the Conn's AcquireWait, SQLTime
// and NetworkWait (entity.Conn), the SQL trace and the store's counters
// read it. A Conn embeds one (Network.NewConnMeter); it is for one
// goroutine at a time, as its Conn is.
type ConnMeter struct {
	d           *Network
	acquireWait time.Duration
	sqlTime     time.Duration
	networkWait time.Duration
}

// NewConnMeter returns a ConnMeter whose statements wait on d (nil: no
// waits) for a Conn whose Acquire waited acquireWait.
func (d *Network) NewConnMeter(acquireWait time.Duration) ConnMeter {
	return ConnMeter{d: d, acquireWait: acquireWait}
}

// Begin returns the Stamp a statement starts at, for End.
func (m *ConnMeter) Begin() occupancy.Stamp { return occupancy.Now() }

// RoundTrip waits one statement's network round trip and returns how long
// it waited, which counts in NetworkWait.
func (m *ConnMeter) RoundTrip(ctx context.Context) (time.Duration, error) {
	w, err := m.d.Statement(ctx)
	m.networkWait += w
	return w, err
}

// End ends the statement that began at start, and returns its time, which
// counts in SQLTime.
func (m *ConnMeter) End(start occupancy.Stamp) time.Duration {
	took := occupancy.Since(start)
	m.sqlTime += took
	return took
}

// AcquireWait returns how long the Acquire that handed out the Conn took.
func (m *ConnMeter) AcquireWait() time.Duration { return m.acquireWait }

// SQLTime returns the time of the Conn's statements so far.
func (m *ConnMeter) SQLTime() time.Duration { return m.sqlTime }

// NetworkWait returns the part of SQLTime waited on the network.
func (m *ConnMeter) NetworkWait() time.Duration { return m.networkWait }
