package yardstick

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The board's PostgreSQL statements, word for word (TestSQLMatchesBoard
// checks them against the board's SQL trace).
const (
	pgNewest = `SELECT no, name, message, created_at FROM posts ORDER BY no DESC LIMIT $1`
	pgBefore = `SELECT no, name, message, created_at FROM posts WHERE no < $1 ORDER BY no DESC LIMIT 1`
)

// pgSource reads from PostgreSQL through a pgxpool of fixed size.
type pgSource struct {
	pool *pgxpool.Pool
}

// openPostgres opens a pool of exactly size connections, as the board's
// fixed pool: min = max, never recycled, never closed for idleness, pinged
// on acquire only after a minute idle (pgxpool's default of a second would
// add a round trip to acquires at low load, which the board avoids too).
func openPostgres(ctx context.Context, dsn string, size int) (*pgSource, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// The parse error repeats the DSN, which may hold a password.
		return nil, errors.New("open postgres: cannot parse DSN: want a URL such as postgres://user@host:5432/db?sslmode=disable")
	}
	cfg.MinConns = int32(size)
	cfg.MaxConns = int32(size)
	cfg.MaxConnLifetime = 0
	cfg.MaxConnLifetimeJitter = 0
	cfg.MaxConnIdleTime = time.Duration(math.MaxInt64)
	cfg.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool {
		return p.IdleDuration > time.Minute
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	s := &pgSource{pool: pool}
	if err := s.fill(ctx, size); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres %s:%d/%s: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database, err)
	}
	return s, nil
}

// fill checks the posts table, then waits until the pool's background start
// has opened size connections (v5 pools are lazy).
func (s *pgSource) fill(ctx context.Context, size int) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var one int
	err := s.pool.QueryRow(ctx, `SELECT 1 FROM posts LIMIT 1`).Scan(&one)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("read posts table (start the board on this database first): %w", err)
	}
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		st := s.pool.Stat()
		if st.ConstructingConns() == 0 && int(st.TotalConns()) >= size {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d connections open: %w", st.TotalConns(), size, ctx.Err())
		case <-tick.C:
		}
	}
}

func (s *pgSource) close() { s.pool.Close() }

func (s *pgSource) all(ctx context.Context, n int) ([]Post, error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire postgres connection: %w", err)
	}
	defer c.Release()
	rows, err := c.Query(ctx, pgNewest, n)
	if err != nil {
		return nil, fmt.Errorf("newest %d posts: %w", n, err)
	}
	defer rows.Close()
	posts := make([]Post, 0, min(n, 100))
	for rows.Next() {
		var p Post
		if err := rows.Scan(&p.No, &p.Name, &p.Message, &p.CreatedAt); err != nil {
			return nil, fmt.Errorf("newest %d posts: %w", n, err)
		}
		p.CreatedAt = p.CreatedAt.UTC()
		posts = append(posts, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("newest %d posts: %w", n, err)
	}
	return posts, nil
}

// pgBeforeOn returns the newest post below no read on c, or ok false when
// none is.
func pgBeforeOn(ctx context.Context, c *pgxpool.Conn, no int64) (p Post, ok bool, err error) {
	err = c.QueryRow(ctx, pgBefore, no).Scan(&p.No, &p.Name, &p.Message, &p.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, false, nil
	}
	if err != nil {
		return p, false, fmt.Errorf("post before %d: %w", no, err)
	}
	p.CreatedAt = p.CreatedAt.UTC()
	return p, true, nil
}

func (s *pgSource) once(ctx context.Context, n int) ([]Post, error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire postgres connection: %w", err)
	}
	defer c.Release()
	return walk(n, func(no int64) (Post, bool, error) { return pgBeforeOn(ctx, c, no) })
}

func (s *pgSource) each(ctx context.Context, n int) ([]Post, error) {
	return walk(n, func(no int64) (Post, bool, error) {
		c, err := s.pool.Acquire(ctx)
		if err != nil {
			return Post{}, false, fmt.Errorf("acquire postgres connection: %w", err)
		}
		defer c.Release()
		return pgBeforeOn(ctx, c, no)
	})
}
