// Package entity holds the board's domain: the Post type, the Store that
// hands out database connections and its Options, the errors a caller can
// classify, the deterministic seed, and the database at a distance as a
// knob (Distance, and the Network the board reads and sets while it runs).
//
//	store, err := open.Store(ctx, entity.Options{Driver: "sqlite", DSN: "bbs.db", Pool: 5})
//	c, err := store.Acquire(ctx)
//	posts, err := c.Newest(ctx, 30)
//	c.Release()
//
// A Store hands out connections explicitly (Acquire, then queries on the
// Conn, then Release) so that the access patterns the lab compares are
// visible in the code that uses it: one query for all posts, one connection
// for many single-row queries, or one connection per query.
//
// The stores themselves live in a package per technology, as in
// benbjohnson/wtf: entity/sqlite (mattn/go-sqlite3, cgo) and
// entity/postgres (pgx). entity/open picks one by Options.Driver, and
// entity/storetest is the contract suite both pass. So commands, bbs and
// entity/fake build without cgo and without either driver. What the drivers
// share beyond the domain (the distance's waits, the pool's meter, the SQL
// trace, the migrations' loader, the classification of driver errors) lives
// in entity/internal/driverkit, where only they see it.
package entity

import (
	"context"
	"errors"
	"io"
	"time"
)

// A Post is one message on the board.
type Post struct {
	No        int64     `json:"no"`
	Name      string    `json:"name"`
	Message   string    `json:"message"`
	CreatedAt time.Time `json:"created_at"`
}

// Store is a database behind a connection pool.
type Store interface {
	// Acquire takes a connection from the pool, waiting while none is free.
	// The caller must Release it. An error it returns is an
	// *AcquireError, which says how long it waited.
	Acquire(ctx context.Context) (Conn, error)
	// Reset empties the board and fills it with the deterministic seed of n
	// posts numbered 1..n; the next post inserted is n+1. It returns the
	// number of posts stored. It takes a connection of its own from the
	// pool, so it is safe while others are in use (and waits while all are).
	Reset(ctx context.Context, n int) (int, error)
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Stats reports the pool's state and counters.
	Stats() PoolStats
	// Close closes every connection.
	Close() error
}

// Conn is one database connection taken from a Store. Each method runs
// exactly one SQL statement. A Conn is for one goroutine at a time.
type Conn interface {
	// Insert stores a post and returns it with its number and time.
	Insert(ctx context.Context, name, message string) (Post, error)
	// Newest returns up to n newest posts, newest first, in one query.
	Newest(ctx context.Context, n int) ([]Post, error)
	// Before returns the newest post whose number is below no, in one
	// single-row query. It returns ErrNotFound when there is none.
	Before(ctx context.Context, no int64) (Post, error)
	// AcquireWait returns how long the Acquire that handed out this Conn
	// took, validation included: the figure the store's pool statistics
	// add to PoolStats.AcquireWait for it.
	AcquireWait() time.Duration
	// SQLTime returns the time this Conn's statements have taken so far,
	// from the call to its return, network waits included: the figure
	// the SQL trace's query_time shows for each.
	SQLTime() time.Duration
	// NetworkWait returns the part of SQLTime this Conn's statements have
	// waited on the network so far (Options.Distance; 0 when the
	// database is near): the figure the store adds to
	// PoolStats.NetworkWait for them.
	NetworkWait() time.Duration
	// Statements returns the number of SQL statements this Conn has sent
	// to the database so far: a statement run again after SQLITE_BUSY
	// counts each time, one that failed before it was sent (a context that
	// ended while it waited on the network) not at all. It may be called
	// from any goroutine.
	Statements() int
	// Release gives the connection back to the pool.
	Release()
}

// PoolStats is a reading of a Store's pool.
type PoolStats struct {
	Size int    `json:"size"` // maximum connections
	Min  int    `json:"min"`  // connections kept open
	Mode string `json:"mode"` // "fixed", "grow" or "none"
	// Open is the physical connections now, and InUse + Idle + Opening
	// always: the three are disjoint states of them.
	Open        int           `json:"open"`
	InUse       int           `json:"in_use"`       // connections handed out now
	Idle        int           `json:"idle"`         // open and not handed out
	Opening     int           `json:"opening"`      // being opened now (mode none on SQLite: database/sql counts these in InUse)
	Waiting     int           `json:"waiting"`      // acquires waiting now
	Acquires    int64         `json:"acquires"`     // acquires completed
	AcquireWait time.Duration `json:"-"`            // total time spent in Acquire
	Opened      int64         `json:"opened_total"` // physical connections ever opened
	// Draining is the connections still open above Size since a Resize
	// made the pool smaller: each is in use and closed when given back.
	Draining int `json:"draining"`
	// Settled is when the pool last came within the sizes a Resize set
	// (Open at the start's fill): the moment of the Resize, or of the
	// release that closed the last connection above Size.
	Settled time.Time `json:"-"`

	// Validation on borrow (Options.PoolValidate), part of AcquireWait:
	// connections validated, and the time it took (network wait included).
	Validations    int64         `json:"validations_total"`
	ValidationTime time.Duration `json:"-"`

	// Time integrals (occupancy): their increase over a span divided by
	// the span is the mean number of acquires waiting and of connections
	// handed out over it, in-progress ones included.
	WaitingTime time.Duration `json:"-"` // acquire-waiting seconds, failed acquires included
	InUseTime   time.Duration `json:"-"` // connection-held seconds (Acquire to Release)

	// The database at a distance (Options.Distance); zero when near.
	NetworkWait  time.Duration `json:"-"`                         // statements' waits on the network, total
	NetworkWaits int64         `json:"network_round_trips_total"` // statements that waited
	ConnectWait  time.Duration `json:"-"`                         // physical opens' waits, total
	// Latency and Jitter are each statement's wait in force now
	// (Network.SetLatency may change them while the store runs).
	Latency time.Duration `json:"-"`
	Jitter  time.Duration `json:"-"`
}

// An AcquireError is a Store.Acquire that failed: Err says why, and Wait
// how long it waited before it did, on the clock that times every acquire
// (PoolStats.AcquireWait counts completed acquires only; a request's own
// acquire wait counts this one too).
type AcquireError struct {
	Wait time.Duration
	Err  error
}

// Error returns Err's message.
func (e *AcquireError) Error() string { return e.Err.Error() }

// Unwrap returns Err, so that errors.Is classifies the failure.
func (e *AcquireError) Unwrap() error { return e.Err }

// MaxNo is a number above every post's number, for the first Before call.
const MaxNo = int64(1<<63 - 1)

// Errors a caller can classify.
var (
	// ErrNotFound means no row matched.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable means the database could not be reached or is busy;
	// the request may succeed when retried later.
	ErrUnavailable = errors.New("database unavailable")
)

// Options says which database to open and how to pool its connections.
type Options struct {
	// Driver is "sqlite" or "postgres".
	Driver string
	// DSN is the SQLite file path (or a "file:" DSN) or the PostgreSQL URL.
	DSN string
	// Pool is the maximum number of connections.
	Pool int
	// PoolMin is the number opened at start and kept; 0 means Pool (min = max).
	PoolMin int
	// PoolMode is "fixed" (a pool of PoolMin..Pool connections) or "none"
	// (every Acquire opens a new physical connection, Release closes it;
	// at most Pool at once).
	PoolMode string
	// PoolValidate is what every Acquire does to a connection before
	// handing it out: "off" (nothing), "ping" (the driver's ping) or
	// "query" (SELECT 1), each a round trip that waits Distance.Latency
	// like a statement; a connection that fails it is discarded and
	// another taken. The time is part of the acquire.
	PoolValidate string
	// ExecMode is, for PostgreSQL only, how pgx sends each statement
	// (the names of pgx's QueryExecMode, as its DSN's
	// default_query_exec_mode takes them): "cache_statement",
	// "cache_describe", "describe_exec", "exec" or "simple_protocol"; empty
	// leaves the DSN's or pgx's default (cache_statement).
	ExecMode string
	// SeedPosts is the number of posts seeded into an empty database.
	SeedPosts int
	// Schema is, for PostgreSQL only, the schema that holds the tables: it
	// is created when missing and becomes every connection's search_path.
	// Empty means the server's default search_path. Tests use it to keep
	// their tables apart on a shared server. It must be a plain identifier
	// (letters, digits, underscores, not starting with a digit).
	Schema string
	// Distance adds a network round trip to every statement and to every
	// physical connection opened (distance.go); zero adds nothing.
	Distance Distance
	// Trace, when not nil, receives one JSON line per statement run on a
	// Conn (Insert, Newest, Before): time, db, statement, query_time in
	// seconds, rows. Writes are serialized. Nil means off.
	Trace io.Writer
}
