package postgres

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
)

// ping makes one round trip to the server process behind c without
// starting a transaction: a Sync message alone, which PostgreSQL answers
// with ReadyForQuery (and PgBouncer, in either mode, passes to a server
// connection as it passes a statement).
//
// pgx's Ping sends an empty statement instead, which PostgreSQL runs as a
// transaction of its own: pg_stat_database counts it in xact_commit. A
// load balancer checking each replica's /readyz twice a second then adds
// to the database's transactions what no request's X-BBS-Queries reports
// (and adds them late: a backend's counts reach pg_stat_database only with
// its next statement that reads a table, so none shows while the board is
// at rest). The store's own checks (the ready check, a new connection's,
// one idle for long) use ping; validation on borrow keeps pgx's, the
// driver's check its knob names.
func ping(ctx context.Context, c *pgconn.PgConn) error {
	p := c.StartPipeline(ctx)
	if err := p.Sync(); err != nil {
		return err // the pipeline closed itself and the connection
	}
	return p.Close() // reads the ReadyForQuery
}
