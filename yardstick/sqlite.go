package yardstick

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// The board's SQLite connection settings and statements, word for word
// (TestSQLMatchesBoard checks the statements against the board's SQL
// trace).
const (
	sqliteParams = "_journal_mode=WAL&_busy_timeout=5000&_synchronous=NORMAL&_txlock=immediate&_foreign_keys=on&_stmt_cache_size=16"
	sqliteNewest = `SELECT no, name, message, created_at FROM posts ORDER BY no DESC LIMIT ?`
	sqliteBefore = `SELECT no, name, message, created_at FROM posts WHERE no < ? ORDER BY no DESC LIMIT 1`
)

// sqliteSource reads one SQLite file through database/sql's pool.
type sqliteSource struct {
	db *sql.DB
}

// openSQLite opens path (or a "file:" DSN, kept as it is) with pool
// connections held open: database/sql has no minimum, so all of them are
// opened at once and given back to an idle list as large as the pool.
func openSQLite(ctx context.Context, path string, pool int) (*sqliteSource, error) {
	dsn := path
	if !strings.HasPrefix(path, "file:") {
		// go-sqlite3 would create a missing file: an empty database has no
		// posts table, and the mistake is clearer said here.
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("sqlite file %q: %w (start the board on it first: it creates and seeds the posts)", path, err)
		}
		dsn = "file:" + path + "?" + sqliteParams
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %q: %w", path, err)
	}
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := &sqliteSource{db: db}
	if err := s.warm(ctx, pool); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %q: %w", path, err)
	}
	return s, nil
}

// warm opens pool connections at once and checks the posts table on one.
func (s *sqliteSource) warm(ctx context.Context, pool int) error {
	held := make([]*sql.Conn, 0, pool)
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range pool {
		c, err := s.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("open connection %d of %d: %w", len(held)+1, pool, err)
		}
		held = append(held, c)
	}
	var one int
	err := held[0].QueryRowContext(ctx, `SELECT 1 FROM posts LIMIT 1`).Scan(&one)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read posts table (start the board on this database first): %w", err)
	}
	return nil
}

func (s *sqliteSource) close() { s.db.Close() }

func (s *sqliteSource) all(ctx context.Context, n int) ([]Post, error) {
	rows, err := s.db.QueryContext(ctx, sqliteNewest, n)
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

// sqliteQuerier is what a single-row query runs on: the pool (a
// connection taken and given back around the query) or one pinned
// connection.
type sqliteQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// before returns the newest post below no, or ok false when none is.
func before(ctx context.Context, q sqliteQuerier, no int64) (p Post, ok bool, err error) {
	err = q.QueryRowContext(ctx, sqliteBefore, no).Scan(&p.No, &p.Name, &p.Message, &p.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return p, false, nil
	}
	if err != nil {
		return p, false, fmt.Errorf("post before %d: %w", no, err)
	}
	p.CreatedAt = p.CreatedAt.UTC()
	return p, true, nil
}

func (s *sqliteSource) once(ctx context.Context, n int) ([]Post, error) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire sqlite connection: %w", err)
	}
	defer c.Close()
	return walk(n, func(no int64) (Post, bool, error) { return before(ctx, c, no) })
}

func (s *sqliteSource) each(ctx context.Context, n int) ([]Post, error) {
	return walk(n, func(no int64) (Post, bool, error) {
		c, err := s.db.Conn(ctx)
		if err != nil {
			return Post{}, false, fmt.Errorf("acquire sqlite connection: %w", err)
		}
		defer c.Close()
		return before(ctx, c, no)
	})
}

// walk reads up to n posts newest first, one single-row query each, each
// query asking for the newest post below the last one read.
func walk(n int, next func(no int64) (Post, bool, error)) ([]Post, error) {
	posts := make([]Post, 0, min(n, 100))
	no := int64(math.MaxInt64)
	for len(posts) < n {
		p, ok, err := next(no)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		posts = append(posts, p)
		no = p.No
	}
	return posts, nil
}
