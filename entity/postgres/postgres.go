// Package postgres is the board's store on PostgreSQL (pgx/v5):
//
//	store, err := postgres.Open(ctx, entity.Options{DSN: "postgres://root@127.0.0.1:5432/test", Pool: 5})
//
// It is an entity.Store whose pgx connections a driverkit.Pool holds in
// fixed mode (its sizes can change while it runs: entity.Resizable), or a
// connection per Acquire in mode none, with the schema from package sql
// applied at Open.
// It is pure Go: a build without cgo keeps it.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"bbslab/entity"
	"bbslab/entity/internal/driverkit"
	"bbslab/occupancy"
	schema "bbslab/sql"
)

// fillTimeout bounds how long Open waits for the pool's initial connections
// when ctx has no earlier deadline.
const fillTimeout = 30 * time.Second

// pingAfterIdle is how long a pooled PostgreSQL connection may sit idle
// before Acquire pings it (pgxpool's ShouldPing, whose default of 1 s would
// add a round trip to many acquires at low load and blur the comparison of
// the three commands); a broken connection is still dropped when a query
// on it fails (release), and a minute catches connections left over from
// a server restart during a pause.
const pingAfterIdle = time.Minute

// cancelGrace is how long a query whose context ended may take to stop
// after PostgreSQL was asked to cancel it, before the connection is cut.
const cancelGrace = 2 * time.Second

// cancelOnServer makes a query whose context ends (a client that left, a
// request past its deadline) stop on the server too: pgx sends PostgreSQL a
// cancel request at once, and cuts the connection only if the query is
// still running cancelGrace later. pgx's default cuts the connection
// at once, which leaves the backend running the query (it notices the lost
// client only when it next writes) and costs a new connection.
func cancelOnServer(c *pgconn.PgConn) ctxwatch.Handler {
	return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelGrace}
}

// pgStore is a entity.Store on PostgreSQL: a driverkit.Pool of pgx
// connections in fixed mode, or a connection per Acquire limited by a
// semaphore in mode none.
type pgStore struct {
	o      entity.Options
	cfg    *pgx.ConnConfig
	pool   *driverkit.Pool[*pgx.Conn] // fixed mode
	sem    chan struct{}              // mode none: one token per open connection
	open   atomic.Int64               // mode none: physical connections open now
	opened atomic.Int64
	m      driverkit.Meter
	closed atomic.Bool
	tr     *driverkit.Tracer  // nil unless entity.Options.Trace
	d      *driverkit.Network // nil unless entity.Options.Distance
	ports  driverkit.PortSet  // local ports of the connections dialled
	// version is the server_version parameter read in setUp (version.go).
	version string
}

// Open opens the PostgreSQL database that o names (o.Driver "postgres" or
// empty; o.DSN a URL or key=value pairs), creates o.Schema when set,
// applies the schema migrations, seeds o.SeedPosts posts when the board is
// empty, and opens the pool's initial connections before it returns:
// PoolMin of them (Pool when PoolMin is 0) in fixed mode, none in mode none.
func Open(ctx context.Context, o entity.Options) (entity.Store, error) {
	if o.Driver == "" {
		o.Driver = "postgres"
	}
	if o.Driver != "postgres" {
		return nil, fmt.Errorf("open postgres: driver %q: want \"postgres\"", o.Driver)
	}
	o, err := o.Normalize()
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(o.DSN)
	if err != nil {
		// The parse error repeats the DSN, which may hold a password.
		return nil, errors.New("open postgres: cannot parse DSN: want a URL such as postgres://user@host:5432/db?sslmode=disable or key=value pairs")
	}
	cfg.BuildContextWatcherHandler = cancelOnServer
	if o.ExecMode != "" {
		cfg.DefaultQueryExecMode = execModes[o.ExecMode]
	}
	if o.Schema != "" {
		cfg.RuntimeParams["search_path"] = pgx.Identifier{o.Schema}.Sanitize()
	}
	s := &pgStore{o: o, cfg: cfg, tr: driverkit.NewTracer(o.Trace, "postgres"), d: driverkit.NewNetwork(o.Distance)}
	// Every connection pgx makes, pooled or not, and its cancel requests,
	// is dialled here: remember the local port it came from (LocalPorts).
	dial := cfg.DialFunc
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err == nil {
			s.ports.Record(c.LocalAddr())
		}
		return c, err
	}
	if s.d != nil {
		// Every physical connection, pooled or not, is made by pgconn,
		// which calls AfterConnect once it is up: the connect latency is
		// waited there, so the open takes it before anyone can use it.
		cfg.AfterConnect = func(ctx context.Context, _ *pgconn.PgConn) error {
			return s.d.Dial(ctx)
		}
	}
	if err := s.setUp(ctx); err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", where(cfg), classify(err))
	}
	if o.PoolMode == entity.PoolNone {
		s.sem = make(chan struct{}, o.Pool)
		return s, nil
	}
	// The connections are never recycled for their age and never closed for
	// being idle (pgxpool's MaxConnLifetime and MaxConnIdleTime off).
	s.pool = driverkit.NewPool(s.dial, closeConn)
	fctx, cancel := context.WithTimeout(ctx, fillTimeout)
	defer cancel()
	if err := s.pool.Resize(fctx, o.PoolMin, o.Pool); err != nil {
		s.pool.Close()
		return nil, fmt.Errorf("open postgres %s: %w", where(cfg), classify(err))
	}
	return s, nil
}

// execModes are pgx's query exec modes by the names entity.Options.ExecMode
// (and pgx's DSN parameter default_query_exec_mode) gives them; Normalize
// has checked the name.
var execModes = map[string]pgx.QueryExecMode{
	entity.ExecCacheStatement: pgx.QueryExecModeCacheStatement,
	"cache_describe":          pgx.QueryExecModeCacheDescribe,
	"describe_exec":           pgx.QueryExecModeDescribeExec,
	entity.ExecExec:           pgx.QueryExecModeExec,
	"simple_protocol":         pgx.QueryExecModeSimpleProtocol,
}

// where names the server for error messages, without credentials.
func where(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
}

// dial opens one connection for the pool and pings it.
func (s *pgStore) dial(ctx context.Context) (*pgx.Conn, error) {
	c, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return nil, classify(err)
	}
	s.opened.Add(1)
	if err := ping(ctx, c.PgConn()); err != nil {
		closeConn(c)
		return nil, classify(err)
	}
	return c, nil
}

// closeConn closes c, waiting at most 5 s for the server to hear it.
func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	c.Close(ctx)
	cancel()
}

// broken tells a connection the pool must not hand out again: closed, or
// left in a query or a transaction (pgxpool's test on release).
func broken(c *pgx.Conn) bool {
	return c.IsClosed() || c.PgConn().IsBusy() || c.PgConn().TxStatus() != 'I'
}

// Resize sets the fixed-mode pool's sizes while the store runs
// (entity.Resizable); mode none has no pool to resize.
func (s *pgStore) Resize(ctx context.Context, minConns, maxConns int) error {
	if s.pool == nil {
		return fmt.Errorf("resize postgres pool: %w: pool_mode %q opens a connection per acquire", entity.ErrNotResizable, s.o.PoolMode)
	}
	if err := s.pool.Resize(ctx, minConns, maxConns); err != nil {
		if errors.Is(err, driverkit.ErrPoolClosed) {
			err = driverkit.Unavailable(err)
		}
		return fmt.Errorf("resize postgres pool to %d..%d: %w", minConns, maxConns, err)
	}
	return nil
}

// setUp creates the schema, migrates and seeds an empty board over one
// connection of its own, so that the pool starts with exactly PoolMin.
func (s *pgStore) setUp(ctx context.Context) error {
	ms, err := driverkit.LoadMigrations(schema.Postgres, "postgres")
	if err != nil {
		return err
	}
	c, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	s.version = c.PgConn().ParameterStatus("server_version")
	if s.o.Schema != "" {
		if _, err := c.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{s.o.Schema}.Sanitize()); err != nil {
			return fmt.Errorf("create schema %q: %w", s.o.Schema, err)
		}
	}
	if err := migratePostgres(ctx, c, ms); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var empty bool
	if err := c.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM posts)`).Scan(&empty); err != nil {
		return err
	}
	if empty && s.o.SeedPosts > 0 {
		return resetPostgres(ctx, c, s.o.SeedPosts)
	}
	return nil
}

// Acquire takes a pooled connection, or opens one in mode none, and, when
// Options.PoolValidate asks, validates it first.
func (s *pgStore) Acquire(ctx context.Context) (entity.Conn, error) {
	t := s.m.Start()
	c, err := s.conn(ctx)
	if err == nil && s.o.PoolValidate != entity.ValidateOff {
		c, err = s.validated(ctx, c)
	}
	held, wait := s.m.Done(t, err == nil)
	if err != nil {
		return nil, &entity.AcquireError{Wait: wait, Err: fmt.Errorf("acquire postgres connection: %w", err)}
	}
	c.m, c.held = &s.m, held
	c.ConnMeter = s.d.NewConnMeter(wait)
	return c, nil
}

// conn takes a connection without metering it.
func (s *pgStore) conn(ctx context.Context) (*pgConn, error) {
	if s.closed.Load() {
		return nil, driverkit.Unavailable(errors.New("store closed"))
	}
	if s.pool != nil {
		return s.pooled(ctx)
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		<-s.sem
		return nil, classify(err)
	}
	s.opened.Add(1)
	s.open.Add(1)
	return &pgConn{c: c, s: s, tr: s.tr, ConnMeter: s.d.NewConnMeter(0)}, nil
}

// pooled takes a connection from the pool, pinging one idle for over
// pingAfterIdle first (a failed ping closes it and takes another, as
// pgxpool's ShouldPing does).
func (s *pgStore) pooled(ctx context.Context) (*pgConn, error) {
	for {
		c, idle, err := s.pool.Acquire(ctx)
		if err != nil {
			if s.closed.Load() || errors.Is(err, driverkit.ErrPoolClosed) {
				return nil, driverkit.Unavailable(err)
			}
			return nil, classify(err)
		}
		if idle > pingAfterIdle {
			if err := ping(ctx, c.PgConn()); err != nil {
				s.pool.Release(c, true)
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
		}
		return &pgConn{c: c, s: s, pooled: true, tr: s.tr, ConnMeter: s.d.NewConnMeter(0)}, nil
	}
}

// validated validates c (Options.PoolValidate) and returns it, or, when it
// fails the test, discards it and takes and validates another, as pgxpool
// does with a connection whose ping fails; at most Pool+1 tries, so that a
// pool whose every connection went stale (a server restart) still hands
// out a fresh one.
//
// The store validates on every acquire (pgxpool's ShouldPing returning
// true, or PrepareConn, would have done it there) so that the validation
// waits the database at a distance as a statement does, is timed and
// counted (driverkit.Meter.Validated), and means the same on both stores.
func (s *pgStore) validated(ctx context.Context, c *pgConn) (*pgConn, error) {
	for try := 1; ; try++ {
		start := occupancy.Now()
		err := s.validate(ctx, c.c)
		s.m.Validated(occupancy.Since(start))
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil || try > s.Stats().Size {
			err = c.classify(ctx, err)
			c.Release()
			return nil, fmt.Errorf("validate (%s): %w", s.o.PoolValidate, err)
		}
		c.discard()
		if c, err = s.conn(ctx); err != nil {
			return nil, err
		}
	}
}

// validate runs one validation round trip on c: the database at a
// distance's wait, then pgx's ping (an empty statement) or SELECT 1. It is
// not a statement of the request (Conn.Statements does not count it).
func (s *pgStore) validate(ctx context.Context, c *pgx.Conn) error {
	if _, err := s.d.Validation(ctx); err != nil {
		return err
	}
	if s.o.PoolValidate == entity.ValidatePing {
		return c.Ping(ctx)
	}
	var one int
	return c.QueryRow(ctx, `SELECT 1`).Scan(&one)
}

// Reset replaces the posts with the seed 1..n in one transaction on one
// connection; numbering continues at n+1.
func (s *pgStore) Reset(ctx context.Context, n int) (int, error) {
	if n < 0 {
		return 0, fmt.Errorf("reset postgres: %d posts: want 0 or more", n)
	}
	c, err := s.conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("reset postgres: %w", err)
	}
	defer c.Release()
	if err := resetPostgres(ctx, c.c, n); err != nil {
		return 0, fmt.Errorf("reset postgres: %w", c.classify(ctx, err))
	}
	return n, nil
}

// resetPostgres empties posts, copies the seed in and restarts the identity.
func resetPostgres(ctx context.Context, c *pgx.Conn, n int) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `TRUNCATE posts`); err != nil {
		return err
	}
	rows := pgx.CopyFromSlice(n, func(i int) ([]any, error) {
		p := entity.SeedPost(i + 1)
		return []any{p.No, p.Name, p.Message, p.CreatedAt}, nil
	})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"posts"}, []string{"no", "name", "message", "created_at"}, rows); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf(`ALTER TABLE posts ALTER COLUMN no RESTART WITH %d`, n+1)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Ping checks that a connection answers.
func (s *pgStore) Ping(ctx context.Context) error {
	c, err := s.conn(ctx)
	if err != nil {
		return fmt.Errorf("ping postgres: %w", err)
	}
	defer c.Release()
	if err := ping(ctx, c.c.PgConn()); err != nil {
		return fmt.Errorf("ping postgres: %w", c.classify(ctx, err))
	}
	return nil
}

// Stats reads the pool (in mode none, the connections open) and our
// counters.
func (s *pgStore) Stats() entity.PoolStats {
	ps := entity.PoolStats{Opened: s.opened.Load()}
	if s.pool != nil {
		s.pool.Fill(&ps)
	} else {
		ps.Size, ps.Mode = s.o.Pool, s.o.ModeName()
		ps.Open = int(s.open.Load())
		ps.InUse = ps.Open
	}
	s.m.Fill(&ps)
	s.d.Fill(&ps)
	return ps
}

// LocalPorts returns the local ports of the connections the store dialled
// in the last few minutes, as its PortSet keeps them (entity.SocketOwner).
func (s *pgStore) LocalPorts() map[int]bool { return s.ports.Ports() }

// Close closes the idle connections now and the others as they are
// released; later acquires fail with entity.ErrUnavailable.
func (s *pgStore) Close() error {
	s.closed.Store(true)
	if s.pool != nil {
		s.pool.Close()
	}
	return nil
}

// pgConn is one PostgreSQL connection: from the pool (pooled) or opened
// for this Acquire alone.
type pgConn struct {
	c                   *pgx.Conn
	s                   *pgStore
	pooled              bool
	tr                  *driverkit.Tracer
	m                   *driverkit.Meter // set by Acquire; nil for Reset and Ping
	held                occupancy.Stamp  // when Acquire handed it out
	released            bool
	sent                atomic.Int64 // statements sent
	driverkit.ConnMeter              // its acquire, statements and network waits (entity.Conn)
}

// Statements returns the statements sent on c.
func (c *pgConn) Statements() int { return int(c.sent.Load()) }

const (
	pgInsert = `INSERT INTO posts (name, message, created_at) VALUES ($1, $2, $3) RETURNING no`
	pgNewest = `SELECT no, name, message, created_at FROM posts ORDER BY no DESC LIMIT $1`
	pgBefore = `SELECT no, name, message, created_at FROM posts WHERE no < $1 ORDER BY no DESC LIMIT 1`
)

// classify is the package's classify (errors.go), plus: an error that left the
// connection closed means the server went away, and a query that
// PostgreSQL cancelled because ctx ended (cancelOnServer) carries ctx's
// error, so that it reads as a deadline or a client that left.
func (c *pgConn) classify(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	err = classify(err)
	if !errors.Is(err, entity.ErrUnavailable) && !errors.Is(err, context.Canceled) &&
		!errors.Is(err, context.DeadlineExceeded) && c.c.IsClosed() {
		return driverkit.Unavailable(err)
	}
	return err
}

// Insert stores a post stamped now (UTC, microseconds).
func (c *pgConn) Insert(ctx context.Context, name, message string) (entity.Post, error) {
	start := c.Begin()
	net, err := c.RoundTrip(ctx)
	p := entity.Post{Name: name, Message: message, CreatedAt: driverkit.PostTime()}
	if err == nil {
		c.sent.Add(1)
		err = c.c.QueryRow(ctx, pgInsert, name, message, p.CreatedAt).Scan(&p.No)
	}
	if err != nil {
		err = c.classify(ctx, err)
	}
	c.tr.Statement(start, c.End(start), pgInsert, 1, net, err)
	if err != nil {
		return entity.Post{}, fmt.Errorf("insert post: %w", err)
	}
	return p, nil
}

// Newest returns up to n newest posts in one query.
func (c *pgConn) Newest(ctx context.Context, n int) ([]entity.Post, error) {
	start := c.Begin()
	net, err := c.RoundTrip(ctx)
	var posts []entity.Post
	if err == nil {
		posts, err = c.newest(ctx, n)
	} else {
		err = fmt.Errorf("newest %d posts: %w", n, err)
	}
	c.tr.Statement(start, c.End(start), pgNewest, len(posts), net, err)
	return posts, err
}

func (c *pgConn) newest(ctx context.Context, n int) ([]entity.Post, error) {
	c.sent.Add(1)
	rows, err := c.c.Query(ctx, pgNewest, n)
	if err != nil {
		return nil, fmt.Errorf("newest %d posts: %w", n, c.classify(ctx, err))
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
		return nil, fmt.Errorf("newest %d posts: %w", n, c.classify(ctx, err))
	}
	return posts, nil
}

// Before returns the newest post numbered below no.
func (c *pgConn) Before(ctx context.Context, no int64) (entity.Post, error) {
	var p entity.Post
	start := c.Begin()
	net, err := c.RoundTrip(ctx)
	if err == nil {
		c.sent.Add(1)
		err = c.c.QueryRow(ctx, pgBefore, no).Scan(&p.No, &p.Name, &p.Message, &p.CreatedAt)
	}
	c.tr.Statement(start, c.End(start), pgBefore, 1, net, classify(err))
	if errors.Is(err, pgx.ErrNoRows) {
		return entity.Post{}, entity.ErrNotFound
	}
	if err != nil {
		return entity.Post{}, fmt.Errorf("post before %d: %w", no, c.classify(ctx, err))
	}
	p.CreatedAt = p.CreatedAt.UTC()
	return p, nil
}

// discard closes a connection that failed its validation and gives it
// back, so that the pool drops it (a closed connection is broken; in mode
// none Release closes it anyway).
func (c *pgConn) discard() {
	if c.pooled {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.c.Close(ctx)
		cancel()
	}
	c.Release()
}

// Release returns the connection to the pool, or closes it in mode none.
// A second Release does nothing.
func (c *pgConn) Release() {
	if c.released {
		return
	}
	c.released = true
	if c.m != nil {
		c.m.Release(c.held)
	}
	if c.pooled {
		c.s.pool.Release(c.c, broken(c.c))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	c.c.Close(ctx)
	cancel()
	c.s.open.Add(-1)
	<-c.s.sem
}

// Network returns the store's database at a distance (entity.Distant),
// nil when it has none.
func (s *pgStore) Network() entity.Network {
	if s.d == nil {
		return nil // a nil interface, not one holding a nil *driverkit.Network
	}
	return s.d
}
