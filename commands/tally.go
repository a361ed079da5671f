package commands

import (
	"context"
	"time"

	"bbslab/entity"
)

// Tally counts what one request did in the database.
type Tally struct {
	Queries     int           // SQL statements sent, the insert and each retry after SQLITE_BUSY included
	Acquires    int           // connections taken from the pool
	AcquireWait time.Duration // time spent waiting for connections
	DB          time.Duration // time spent in SQL statements, Network included
	Network     time.Duration // the part of DB waited on the network (a database at a distance)
}

// acquireConn takes a connection from the pool, accounting for the wait. In a
// goroutine dump, a request waiting for a connection shows this frame; it is
// kept out of line so that the frame is always its own.
//
//go:noinline
func acquireConn(ctx context.Context, s entity.Store, t *Tally) (entity.Conn, error) {
	start := mono()
	c, err := s.Acquire(ctx)
	t.AcquireWait += mono() - start
	if err != nil {
		return nil, err
	}
	t.Acquires++
	return c, nil
}

// release gives c back to the pool, accounting for the statements sent on
// it (the connection counts them, so that a statement SQLite ran again
// after SQLITE_BUSY counts each time it was sent) and their network waits.
func release(c entity.Conn, t *Tally) {
	t.Queries += c.Statements()
	t.Network += c.Waited()
	c.Release()
}

// inSQL runs one SQL statement and accounts for its time in t (release
// counts the statements sent). In a goroutine
// dump, a request running SQL shows this frame; it is kept out of line so
// that the frame is always its own.
//
//go:noinline
func inSQL(t *Tally, stmt func() error) error {
	start := mono()
	err := stmt()
	t.DB += mono() - start
	return err
}

// epoch is the origin of mono's readings.
var epoch = time.Now()

// mono reads the monotonic clock only, as time since epoch: one clock
// reading where time.Now takes two (wall and monotonic), for intervals
// that need no wall time.
func mono() time.Duration { return time.Since(epoch) }
