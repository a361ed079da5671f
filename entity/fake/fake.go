// Package fake is an in-memory entity.Store for tests:
//
//	st := fake.New(10) // ten seeded posts
//	srv := bbs.New(bbs.Options{Store: st})
//
// It counts what its callers do and can hold acquires until a test lets
// them through.
package fake

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"bbslab/entity"
	"bbslab/occupancy"
)

// Store is an in-memory entity.Store.
type Store struct {
	// Gate, when not nil, makes every Acquire wait for a value from it (or
	// for its context to end), so a test can hold requests in flight.
	Gate chan struct{}
	// Err, when set, is returned by every Acquire.
	Err error
	// SQLGate, when not nil, makes every statement wait for a value from it
	// (or for its context to end), so a test can hold requests inside SQL.
	SQLGate chan struct{}
	// Retries is how many times every statement is sent again before it
	// succeeds, as SQLite runs a statement again after SQLITE_BUSY: each
	// statement counts 1+Retries in Conn.Statements and in Queries.
	Retries int

	mu    sync.Mutex
	posts []entity.Post // oldest first

	Acquires atomic.Int64 // connections handed out
	Releases atomic.Int64 // connections given back
	Queries  atomic.Int64 // statements sent, retries included
	Inserts  atomic.Int64 // posts stored
	Waiting  atomic.Int64 // acquires waiting at the gate now
	InSQL    atomic.Int64 // statements waiting at the SQL gate now
	Resets   atomic.Int64

	waitNs atomic.Int64 // completed acquires' waits

	// The sizes the last Resize set (1 and 1 until then), and when.
	sizeMu    sync.Mutex
	size, min int
	resized   time.Time
}

// New returns a Store holding the deterministic seed of n posts.
func New(n int) *Store {
	s := &Store{}
	s.Reset(context.Background(), n)
	return s
}

// Acquire hands out a connection, waiting at the gate when there is one.
// It times the wait as the real stores do: the Conn's AcquireWait and
// Stats' AcquireWait (completed acquires) read the one figure, and a
// failed acquire's *entity.AcquireError carries it.
func (s *Store) Acquire(ctx context.Context) (entity.Conn, error) {
	start := occupancy.Now()
	if s.Err != nil {
		return nil, &entity.AcquireError{Wait: occupancy.Since(start), Err: s.Err}
	}
	if s.Gate != nil {
		s.Waiting.Add(1)
		select {
		case <-s.Gate:
			s.Waiting.Add(-1)
		case <-ctx.Done():
			s.Waiting.Add(-1)
			return nil, &entity.AcquireError{Wait: occupancy.Since(start), Err: ctx.Err()}
		}
	}
	wait := occupancy.Since(start)
	s.waitNs.Add(int64(wait))
	s.Acquires.Add(1)
	return &conn{s: s, acquireWait: wait}, nil
}

// Reset replaces the posts with the seed of n posts.
func (s *Store) Reset(ctx context.Context, n int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts = s.posts[:0]
	for i := 1; i <= n; i++ {
		s.posts = append(s.posts, entity.SeedPost(i))
	}
	s.Resets.Add(1)
	return n, nil
}

// Ping succeeds unless Err is set.
func (s *Store) Ping(ctx context.Context) error { return s.Err }

// Stats reports the counters.
func (s *Store) Stats() entity.PoolStats {
	a, r := s.Acquires.Load(), s.Releases.Load()
	inUse := int(a - r)
	s.sizeMu.Lock()
	size, minimum, settled := max(1, s.size), max(1, s.min), s.resized
	s.sizeMu.Unlock()
	open := max(minimum, inUse) // min kept open; more while more are handed out
	return entity.PoolStats{Size: size, Min: minimum, Mode: "fake", Open: open, InUse: inUse, Idle: open - inUse, Acquires: a,
		AcquireWait: time.Duration(s.waitNs.Load()), Waiting: int(s.Waiting.Load()), Settled: settled}
}

// Resize records the sizes, which Stats then reports (entity.Resizable);
// it limits nothing.
func (s *Store) Resize(ctx context.Context, minConns, maxConns int) error {
	if minConns < 1 || maxConns < minConns {
		return fmt.Errorf("resize fake pool to %d..%d: want 1 <= min <= max", minConns, maxConns)
	}
	s.sizeMu.Lock()
	defer s.sizeMu.Unlock()
	s.size, s.min, s.resized = maxConns, minConns, time.Now()
	return nil
}

// Close does nothing.
func (s *Store) Close() error { return nil }

// Posts returns a copy of every stored post, oldest first.
func (s *Store) Posts() []entity.Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.posts)
}

type conn struct {
	s           *Store
	released    bool
	sent        atomic.Int64
	acquireWait time.Duration
	sqlTime     time.Duration
}

func (c *conn) Insert(ctx context.Context, name, message string) (entity.Post, error) {
	defer c.took(occupancy.Now())
	if err := c.statement(ctx); err != nil {
		return entity.Post{}, err
	}
	c.s.Inserts.Add(1)
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	p := entity.Post{No: 1, Name: name, Message: message, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	if n := len(c.s.posts); n > 0 {
		p.No = c.s.posts[n-1].No + 1
	}
	c.s.posts = append(c.s.posts, p)
	return p, nil
}

func (c *conn) Newest(ctx context.Context, n int) ([]entity.Post, error) {
	defer c.took(occupancy.Now())
	if err := c.statement(ctx); err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	out := make([]entity.Post, 0, n)
	for i := len(c.s.posts) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, c.s.posts[i])
	}
	return out, nil
}

func (c *conn) Before(ctx context.Context, no int64) (entity.Post, error) {
	defer c.took(occupancy.Now())
	if err := c.statement(ctx); err != nil {
		return entity.Post{}, err
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	for i := len(c.s.posts) - 1; i >= 0; i-- {
		if c.s.posts[i].No < no {
			return c.s.posts[i], nil
		}
	}
	return entity.Post{}, entity.ErrNotFound
}

// AcquireWait returns how long the Acquire that handed out c took.
func (c *conn) AcquireWait() time.Duration { return c.acquireWait }

// SQLTime returns the time c's statements took, their waits at the SQL
// gate included.
func (c *conn) SQLTime() time.Duration { return c.sqlTime }

// took ends a statement that began at start: its time counts in SQLTime.
func (c *conn) took(start occupancy.Stamp) { c.sqlTime += occupancy.Since(start) }

// NetworkWait is 0: the fake database is near.
func (c *conn) NetworkWait() time.Duration { return 0 }

// Statements returns the statements sent on c, retries included.
func (c *conn) Statements() int { return int(c.sent.Load()) }

func (c *conn) Release() {
	if !c.released {
		c.released = true
		c.s.Releases.Add(1)
	}
}

// statement waits at the SQL gate when there is one, then counts the
// statement sent, 1+Retries times.
func (c *conn) statement(ctx context.Context) error {
	if err := c.s.gate(ctx); err != nil {
		return err
	}
	n := int64(1 + c.s.Retries)
	c.sent.Add(n)
	c.s.Queries.Add(n)
	return nil
}

// gate waits at the SQL gate when there is one.
func (s *Store) gate(ctx context.Context) error {
	if s.SQLGate == nil {
		return nil
	}
	s.InSQL.Add(1)
	defer s.InSQL.Add(-1)
	select {
	case <-s.SQLGate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
