package commands

import (
	"context"
	"errors"
	"time"

	"bbslab/entity"
)

// Tally counts what one request did in the database. It times nothing
// itself: each wait is timed once, by the store, where it happens, and read
// here from the Conn (or, for an acquire that failed, its
// *entity.AcquireError), so that the request's figures and the store's
// statistics are one figure each.
type Tally struct {
	Queries     int           // SQL statements sent, the insert and each retry after SQLITE_BUSY included
	Acquires    int           // connections taken from the pool
	AcquireWait time.Duration // time spent waiting for connections, failed acquires included
	SQLTime     time.Duration // time spent in SQL statements, NetworkWait included
	NetworkWait time.Duration // the part of SQLTime waited on the network (a database at a distance)
}

// acquireConn takes a connection from the pool, accounting for its wait.
// In a goroutine dump, a request waiting for a connection shows this
// frame; it is kept out of line so that the frame is always its own.
//
//go:noinline
func acquireConn(ctx context.Context, s entity.Store, t *Tally) (entity.Conn, error) {
	c, err := s.Acquire(ctx)
	if err != nil {
		var ae *entity.AcquireError
		if errors.As(err, &ae) {
			t.AcquireWait += ae.Wait
		}
		return nil, err
	}
	t.Acquires++
	t.AcquireWait += c.AcquireWait()
	return c, nil
}

// release gives c back to the pool, accounting for the statements sent on
// it (the connection counts them, so that a statement SQLite ran again
// after SQLITE_BUSY counts each time it was sent), their time and their
// network waits.
func release(c entity.Conn, t *Tally) {
	t.Queries += c.Statements()
	t.SQLTime += c.SQLTime()
	t.NetworkWait += c.NetworkWait()
	c.Release()
}

// inSQL runs one SQL statement (the Conn times it; release reads the
// time). In a goroutine dump, a request running SQL shows this frame; it is
// kept out of line so that the frame is always its own.
//
//go:noinline
func inSQL(stmt func() error) error {
	return stmt()
}
