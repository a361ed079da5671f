package entity

import (
	"context"
	"fmt"
	"regexp"
	"sync/atomic"
	"time"

	"bbslab/occupancy"
)

// Pool modes accepted in Options.PoolMode.
const (
	// PoolFixed keeps a pool of PoolMin..Pool connections open.
	PoolFixed = "fixed"
	// PoolNone opens a physical connection on every Acquire and closes it
	// on Release, with at most Pool open at once.
	PoolNone = "none"
)

// Open opens the database that o names, applies the schema migrations, seeds
// o.SeedPosts posts when the board is empty, and opens the pool's initial
// connections before it returns: PoolMin of them (Pool when PoolMin is 0) in
// fixed mode, none in mode none.
func Open(ctx context.Context, o Options) (Store, error) {
	o, err := o.normalize()
	if err != nil {
		return nil, err
	}
	switch o.Driver {
	case "sqlite":
		return openSQLite(ctx, o)
	default:
		return openPostgres(ctx, o)
	}
}

var schemaName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// normalize checks o and fills in its defaults: PoolMin 0 means Pool and an
// empty PoolMode means fixed.
func (o Options) normalize() (Options, error) {
	switch o.Driver {
	case "sqlite", "postgres":
	default:
		return o, fmt.Errorf("open store: driver %q: want \"sqlite\" or \"postgres\"", o.Driver)
	}
	if o.DSN == "" {
		return o, fmt.Errorf("open %s: empty DSN", o.Driver)
	}
	if o.Pool < 1 {
		return o, fmt.Errorf("open %s: pool size %d: want at least 1", o.Driver, o.Pool)
	}
	if o.PoolMin < 0 || o.PoolMin > o.Pool {
		return o, fmt.Errorf("open %s: pool min %d: want 0..%d (0 means the pool size)", o.Driver, o.PoolMin, o.Pool)
	}
	if o.PoolMin == 0 {
		o.PoolMin = o.Pool
	}
	switch o.PoolMode {
	case "":
		o.PoolMode = PoolFixed
	case PoolFixed, PoolNone:
	default:
		return o, fmt.Errorf("open %s: pool mode %q: want %q or %q", o.Driver, o.PoolMode, PoolFixed, PoolNone)
	}
	if o.SeedPosts < 0 {
		return o, fmt.Errorf("open %s: seed posts %d: want 0 or more", o.Driver, o.SeedPosts)
	}
	if o.Schema != "" {
		if o.Driver != "postgres" {
			return o, fmt.Errorf("open %s: schema %q: only PostgreSQL has schemas", o.Driver, o.Schema)
		}
		if !schemaName.MatchString(o.Schema) {
			return o, fmt.Errorf("open postgres: schema %q: want letters, digits and underscores, not starting with a digit, at most 63", o.Schema)
		}
	}
	return o, nil
}

// modeName is the PoolStats.Mode of normalized options.
func (o Options) modeName() string {
	switch {
	case o.PoolMode == PoolNone:
		return "none"
	case o.PoolMin < o.Pool:
		return "grow"
	default:
		return "fixed"
	}
}

// meter counts Acquire calls as they happen, which the pools' own
// statistics do not (they add waits only once an acquire ends), and
// integrates the acquires waiting and the connections held over time
// (occupancy.Gauge), so that their mean over any span is exact.
type meter struct {
	acquires atomic.Int64 // completed
	waitNs   atomic.Int64 // total time in completed acquires
	waiting  occupancy.Gauge
	held     occupancy.Gauge // connections handed out by Acquire
}

// start records an acquire beginning.
func (m *meter) start() occupancy.Stamp { return m.waiting.Enter() }

// done records the end of an acquire that began at t; when it got a
// connection, the connection is held from now on until release.
func (m *meter) done(t occupancy.Stamp, ok bool) occupancy.Stamp {
	d := m.waiting.Leave(t)
	if !ok {
		return 0
	}
	m.acquires.Add(1)
	m.waitNs.Add(int64(d))
	return m.held.Enter()
}

// release records a connection handed out at t given back.
func (m *meter) release(t occupancy.Stamp) { m.held.Leave(t) }

// fill copies the counters into s.
func (m *meter) fill(s *PoolStats) {
	n, waiting := m.waiting.Read()
	s.Waiting = int(n)
	s.WaitingTime = waiting
	_, s.InUseTime = m.held.Read()
	s.Acquires = m.acquires.Load()
	s.AcquireWait = time.Duration(m.waitNs.Load())
}
