//go:build cgo

package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"

	"bbslab/entity"
	"bbslab/entity/internal/driverkit"
	"bbslab/occupancy"
	schema "bbslab/sql"
)

// sqliteParams are the connection settings added to a plain file path: WAL,
// a busy handler instead of instant SQLITE_BUSY, immediate write
// transactions, and a per-connection cache of prepared statements (the
// counterpart of pgx's statement cache: a new connection starts empty).
const sqliteParams = "_journal_mode=WAL&_busy_timeout=5000&_synchronous=NORMAL&_txlock=immediate&_foreign_keys=on&_stmt_cache_size=16"

// sqliteDSN turns a file path into a DSN; a "file:" DSN is kept as it is.
func sqliteDSN(dsn string) string {
	if strings.HasPrefix(dsn, "file:") {
		return dsn
	}
	return "file:" + dsn + "?" + sqliteParams
}

// countingConnector opens SQLite connections and counts them.
type countingConnector struct {
	dsn    string
	drv    *sqlite3.SQLiteDriver
	d      *driverkit.Network // connect_latency; nil when near
	opened atomic.Int64
}

// Connect opens one physical connection, first waiting the distance's
// connect latency.
func (c *countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := c.d.Dial(ctx); err != nil {
		return nil, err
	}
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	c.opened.Add(1)
	return conn, nil
}

// Driver returns the SQLite driver.
func (c *countingConnector) Driver() driver.Driver { return c.drv }

// sqliteStore is an entity.Store on one SQLite file. database/sql opens
// its connections; in fixed mode a driverkit.Pool holds them (so that its
// sizes can change while it runs), in mode none every acquire takes a new
// one from database/sql.
type sqliteStore struct {
	o      entity.Options
	db     *sql.DB
	conns  *countingConnector
	m      driverkit.Meter
	closed atomic.Bool
	pool   *driverkit.Pool[*sql.Conn] // fixed mode
	sem    chan struct{}              // mode none: one token per connection taken
	tr     *driverkit.Tracer          // nil unless entity.Options.Trace
	d      *driverkit.Network         // nil unless entity.Options.Distance
	busy   time.Duration              // how long a statement retries SQLITE_BUSY (see busy.go)
}

// Open opens the SQLite database that o names (o.Driver "sqlite" or empty;
// o.DSN a file path or a "file:" DSN), applies the schema migrations, seeds
// o.SeedPosts posts when the board is empty, and opens the pool's initial
// connections before it returns: PoolMin of them (Pool when PoolMin is 0)
// in fixed mode, none in mode none. In a build without cgo it fails with
// ErrNoCgo (nocgo.go).
func Open(ctx context.Context, o entity.Options) (entity.Store, error) {
	if o.Driver == "" {
		o.Driver = "sqlite"
	}
	if o.Driver != "sqlite" {
		return nil, fmt.Errorf("open sqlite: driver %q: want \"sqlite\"", o.Driver)
	}
	o, err := o.Normalize()
	if err != nil {
		return nil, err
	}
	s := &sqliteStore{o: o, tr: driverkit.NewTracer(o.Trace, "sqlite"), d: driverkit.NewNetwork(o.Distance)}
	dsn, busy := sliceBusyTimeout(sqliteDSN(o.DSN))
	s.busy = busy
	s.conns = &countingConnector{dsn: dsn, drv: &sqlite3.SQLiteDriver{}, d: s.d}
	s.db = sql.OpenDB(s.conns)
	s.db.SetConnMaxLifetime(0)
	s.db.SetConnMaxIdleTime(0)
	if o.PoolMode == entity.PoolNone {
		s.db.SetMaxOpenConns(o.Pool)
		// database/sql alone cannot do "a new connection per acquire":
		// with no idle list it still hands a released connection straight
		// to a waiting acquire, and when a discarded connection makes room
		// its opener goroutine opens one for each waiter, more than one
		// when releases come close together (a connection opened for
		// nobody). So waits happen on sem, as in the PostgreSQL store, and
		// database/sql never has a waiter: a token holder always finds
		// room and opens its own connection (see conn and put).
		s.sem = make(chan struct{}, o.Pool)
		s.db.SetMaxIdleConns(0)
	} else {
		// The pool holds every connection and limits them; database/sql
		// only opens them. It keeps none idle once the pool is filled
		// (setUp), so that a connection the pool closes is closed, and one
		// until then, so that the migrations' connection is the pool's
		// first rather than one more opened.
		s.db.SetMaxIdleConns(1)
		s.pool = driverkit.NewPool(s.dial, func(c *sql.Conn) { c.Close() })
	}
	if err := s.setUp(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open sqlite %q: %w", o.DSN, classify(err))
	}
	return s, nil
}

// setUp migrates, pre-warms the pool (PoolMin connections, each opened
// and pinged) and seeds an empty board.
func (s *sqliteStore) setUp(ctx context.Context) error {
	ms, err := driverkit.LoadMigrations(schema.SQLite, "sqlite")
	if err != nil {
		return err
	}
	if err := migrateSQLite(ctx, s.db, ms); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var empty bool
	if err := s.db.QueryRowContext(ctx, `SELECT NOT EXISTS (SELECT 1 FROM posts)`).Scan(&empty); err != nil {
		return err
	}
	if s.pool != nil {
		if err := s.pool.Resize(ctx, s.o.PoolMin, s.o.Pool); err != nil {
			return err
		}
		s.db.SetMaxIdleConns(0)
	}
	if empty && s.o.SeedPosts > 0 {
		if _, err := s.Reset(ctx, s.o.SeedPosts); err != nil {
			return err
		}
	}
	return nil
}

// dial opens one connection through database/sql, which keeps none idle
// for the pool to take, and pings it.
func (s *sqliteStore) dial(ctx context.Context) (*sql.Conn, error) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, classify(err)
	}
	if err := c.PingContext(ctx); err != nil {
		c.Close()
		return nil, classify(err)
	}
	return c, nil
}

// Resize sets the fixed-mode pool's sizes while the store runs
// (entity.Resizable); mode none has no pool to resize.
func (s *sqliteStore) Resize(ctx context.Context, minConns, maxConns int) error {
	if s.pool == nil {
		return fmt.Errorf("resize sqlite pool: %w: pool_mode %q opens a connection per acquire", entity.ErrNotResizable, s.o.PoolMode)
	}
	if err := s.pool.Resize(ctx, minConns, maxConns); err != nil {
		if errors.Is(err, driverkit.ErrPoolClosed) {
			err = driverkit.Unavailable(err)
		}
		return fmt.Errorf("resize sqlite pool to %d..%d: %w", minConns, maxConns, err)
	}
	return nil
}

// Acquire takes a connection from the pool (in mode none, a new one) and,
// when Options.PoolValidate asks, validates it first.
func (s *sqliteStore) Acquire(ctx context.Context) (entity.Conn, error) {
	t := s.m.Start()
	c, err := s.conn(ctx)
	if err == nil && s.o.PoolValidate != entity.ValidateOff {
		c, err = s.validated(ctx, c)
	}
	held, wait := s.m.Done(t, err == nil)
	if err != nil {
		return nil, &entity.AcquireError{Wait: wait, Err: fmt.Errorf("acquire sqlite connection: %w", err)}
	}
	return &sqliteConn{c: c, s: s, tr: s.tr, m: &s.m, held: held, busy: s.busy, ConnMeter: s.d.NewConnMeter(wait)}, nil
}

// conn takes a connection without metering it.
func (s *sqliteStore) conn(ctx context.Context) (*sql.Conn, error) {
	if s.closed.Load() {
		return nil, driverkit.Unavailable(errors.New("store closed"))
	}
	if s.pool != nil {
		c, _, err := s.pool.Acquire(ctx)
		if errors.Is(err, driverkit.ErrPoolClosed) {
			return nil, driverkit.Unavailable(err)
		}
		return c, err
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		<-s.sem
		if s.closed.Load() {
			return nil, driverkit.Unavailable(err)
		}
		return nil, classify(err)
	}
	return c, nil
}

// validated validates c (Options.PoolValidate) and returns it, or, when it
// fails the test, discards it and takes and validates another, as a pool
// that tests on borrow does; at most Pool+1 tries, so that a pool whose
// every connection went stale still hands out a fresh one.
func (s *sqliteStore) validated(ctx context.Context, c *sql.Conn) (*sql.Conn, error) {
	for try := 1; ; try++ {
		start := occupancy.Now()
		err := s.validate(ctx, c)
		s.m.Validated(occupancy.Since(start))
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil || try > s.Stats().Size {
			s.put(c)
			return nil, fmt.Errorf("validate (%s): %w", s.o.PoolValidate, classify(err))
		}
		s.discard(c)
		if c, err = s.conn(ctx); err != nil {
			return nil, err
		}
	}
}

// validate runs one validation round trip on c: the database at a
// distance's wait, then the driver's ping or SELECT 1. It is not a
// statement of the request (Conn.Statements does not count it).
func (s *sqliteStore) validate(ctx context.Context, c *sql.Conn) error {
	if _, err := s.d.Validation(ctx); err != nil {
		return err
	}
	sctx, err := statementContext(ctx)
	if err != nil {
		return err
	}
	if s.o.PoolValidate == entity.ValidatePing {
		return c.PingContext(sctx)
	}
	var one int
	return c.QueryRowContext(sctx, `SELECT 1`).Scan(&one)
}

// discard closes a connection taken by conn that failed its validation,
// so that it is never handed out again (see put).
func (s *sqliteStore) discard(c *sql.Conn) {
	if s.pool != nil {
		s.pool.Release(c, true)
		return
	}
	c.Raw(func(any) error { return driver.ErrBadConn })
	<-s.sem
}

// put gives a connection taken by conn back. In mode none it closes the
// physical connection, then frees its token: database/sql treats a
// connection whose Raw callback returns driver.ErrBadConn as broken and
// closes it before Raw returns (sql.Conn.Raw's documentation: only when err is
// not driver.ErrBadConn does the Conn stay usable), never keeping or
// handing it on; so the next token holder finds room under
// SetMaxOpenConns and opens a connection of its own.
//
// In fixed mode the pool keeps it, unless database/sql has closed it: a
// statement that failed with driver.ErrBadConn ends the sql.Conn (its Raw
// then answers sql.ErrConnDone), and the pool closes and replaces it.
func (s *sqliteStore) put(c *sql.Conn) {
	if s.pool != nil {
		s.pool.Release(c, c.Raw(func(any) error { return nil }) != nil)
		return
	}
	s.discard(c)
}

// Reset replaces the posts with the seed 1..n in one transaction on one
// connection; numbering continues at n+1.
func (s *sqliteStore) Reset(ctx context.Context, n int) (int, error) {
	if n < 0 {
		return 0, fmt.Errorf("reset sqlite: %d posts: want 0 or more", n)
	}
	c, err := s.conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("reset sqlite: %w", err)
	}
	defer s.put(c)
	if err := resetSQLite(ctx, c, n); err != nil {
		return 0, fmt.Errorf("reset sqlite: %w", classify(err))
	}
	return n, nil
}

func resetSQLite(ctx context.Context, c *sql.Conn, n int) error {
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM posts`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sqlite_sequence WHERE name = 'posts'`); err != nil {
		return err
	}
	// Explicit numbers move sqlite_sequence up to n as they are inserted.
	st, err := tx.PrepareContext(ctx, `INSERT INTO posts (no, name, message, created_at) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for i := 1; i <= n; i++ {
		p := entity.SeedPost(i)
		if _, err := st.ExecContext(ctx, p.No, p.Name, p.Message, p.CreatedAt); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Ping checks that a connection answers a query.
func (s *sqliteStore) Ping(ctx context.Context) error {
	c, err := s.conn(ctx)
	if err != nil {
		return fmt.Errorf("ping sqlite: %w", err)
	}
	defer s.put(c)
	if err := c.PingContext(ctx); err != nil {
		return fmt.Errorf("ping sqlite: %w", classify(err))
	}
	return nil
}

// Stats reads the pool (in mode none, database/sql's connections) and our
// counters.
func (s *sqliteStore) Stats() entity.PoolStats {
	ps := entity.PoolStats{Opened: s.conns.opened.Load()}
	if s.pool != nil {
		s.pool.Fill(&ps)
	} else {
		st := s.db.Stats()
		ps.Size, ps.Mode = s.o.Pool, s.o.ModeName()
		ps.Open, ps.InUse, ps.Idle = st.OpenConnections, st.InUse, st.Idle
	}
	s.m.Fill(&ps)
	s.d.Fill(&ps)
	return ps
}

// Close closes the idle connections now and the others as they are
// released; later acquires fail with entity.ErrUnavailable.
func (s *sqliteStore) Close() error {
	s.closed.Store(true)
	if s.pool != nil {
		s.pool.Close()
	}
	return s.db.Close()
}

// sqliteConn is one connection pinned from database/sql's pool.
type sqliteConn struct {
	c                   *sql.Conn
	s                   *sqliteStore // for put
	tr                  *driverkit.Tracer
	m                   *driverkit.Meter
	held                occupancy.Stamp // when Acquire handed it out
	busy                time.Duration   // retry budget for SQLITE_BUSY
	sent                atomic.Int64    // statements sent, each SQLITE_BUSY retry included
	driverkit.ConnMeter                 // its acquire, statements and network waits (entity.Conn)
}

// Statements returns the statements sent on c, retries included.
func (c *sqliteConn) Statements() int { return int(c.sent.Load()) }

// statementContext returns the context a statement runs under: ctx without
// its cancellation, or ctx's error when it has already ended. A statement
// is then never interrupted once it has started, but none starts after the
// request's deadline or after its client left.
//
// Why: for a context that can end, database/sql starts a goroutine per
// query that waits for it (Rows.awaitDone) and go-sqlite3 registers a
// context.AfterFunc to call sqlite3_interrupt, around every statement; the
// board's statements take microseconds, so that watching cost more than it
// could ever save. The long waits stay cancellable: a busy writer's lock
// is waited for in slices with the context checked between them
// (retryBusy, busy.go; SQLite's busy handler does not look at
// sqlite3_interrupt anyway), and the database at a distance waits under
// ctx (RoundTrip).
func statementContext(ctx context.Context) (context.Context, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ctx.Done() == nil {
		return ctx, nil
	}
	return context.WithoutCancel(ctx), nil
}

const (
	sqliteInsert = `INSERT INTO posts (name, message, created_at) VALUES (?, ?, ?) RETURNING no`
	sqliteNewest = `SELECT no, name, message, created_at FROM posts ORDER BY no DESC LIMIT ?`
	sqliteBefore = `SELECT no, name, message, created_at FROM posts WHERE no < ? ORDER BY no DESC LIMIT 1`
)

// Insert stores a post stamped now (UTC, microseconds).
func (c *sqliteConn) Insert(ctx context.Context, name, message string) (entity.Post, error) {
	start := c.Begin()
	net, err := c.RoundTrip(ctx)
	p := entity.Post{Name: name, Message: message, CreatedAt: driverkit.PostTime()}
	if err == nil {
		err = retryBusy(ctx, c.busy, func() error {
			sctx, err := statementContext(ctx)
			if err != nil {
				return err
			}
			c.sent.Add(1)
			return c.c.QueryRowContext(sctx, sqliteInsert, name, message, p.CreatedAt).Scan(&p.No)
		})
	}
	if err != nil {
		err = classify(err)
	}
	c.tr.Statement(start, c.End(start), sqliteInsert, 1, net, err)
	if err != nil {
		return entity.Post{}, fmt.Errorf("insert post: %w", err)
	}
	return p, nil
}

// Newest returns up to n newest posts in one query.
func (c *sqliteConn) Newest(ctx context.Context, n int) ([]entity.Post, error) {
	start := c.Begin()
	net, err := c.RoundTrip(ctx)
	var posts []entity.Post
	if err == nil {
		posts, err = c.newest(ctx, n)
	} else {
		err = fmt.Errorf("newest %d posts: %w", n, err)
	}
	c.tr.Statement(start, c.End(start), sqliteNewest, len(posts), net, err)
	return posts, err
}

func (c *sqliteConn) newest(ctx context.Context, n int) ([]entity.Post, error) {
	sctx, err := statementContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("newest %d posts: %w", n, err)
	}
	c.sent.Add(1)
	rows, err := c.c.QueryContext(sctx, sqliteNewest, n)
	if err != nil {
		return nil, fmt.Errorf("newest %d posts: %w", n, classify(err))
	}
	defer rows.Close()
	posts := make([]entity.Post, 0, max(0, min(n, 100)))
	for rows.Next() {
		var p entity.Post
		if err := rows.Scan(&p.No, &p.Name, &p.Message, &p.CreatedAt); err != nil {
			return nil, fmt.Errorf("newest %d posts: %w", n, err)
		}
		p.CreatedAt = p.CreatedAt.UTC()
		posts = append(posts, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("newest %d posts: %w", n, classify(err))
	}
	return posts, nil
}

// Before returns the newest post numbered below no.
func (c *sqliteConn) Before(ctx context.Context, no int64) (entity.Post, error) {
	var p entity.Post
	start := c.Begin()
	net, err := c.RoundTrip(ctx)
	if err == nil {
		err = retryBusy(ctx, c.busy, func() error {
			sctx, err := statementContext(ctx)
			if err != nil {
				return err
			}
			c.sent.Add(1)
			return c.c.QueryRowContext(sctx, sqliteBefore, no).Scan(&p.No, &p.Name, &p.Message, &p.CreatedAt)
		})
	}
	c.tr.Statement(start, c.End(start), sqliteBefore, 1, net, classify(err))
	if errors.Is(err, sql.ErrNoRows) {
		return entity.Post{}, entity.ErrNotFound
	}
	if err != nil {
		return entity.Post{}, fmt.Errorf("post before %d: %w", no, classify(err))
	}
	p.CreatedAt = p.CreatedAt.UTC()
	return p, nil
}

// Release returns the connection to the pool (in mode none, closes it).
// A second Release does nothing.
func (c *sqliteConn) Release() {
	if c.c == nil {
		return
	}
	c.s.put(c.c)
	c.c = nil
	if c.m != nil {
		c.m.Release(c.held)
	}
}

// Network returns the store's database at a distance (entity.Distant),
// nil when it has none.
func (s *sqliteStore) Network() entity.Network {
	if s.d == nil {
		return nil // a nil interface, not one holding a nil *driverkit.Network
	}
	return s.d
}
