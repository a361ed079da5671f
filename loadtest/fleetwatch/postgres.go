package fleetwatch

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// A PostgresReading counts client backends: Backends the watched ones by state
// (spaces as underscores, the reader's aside), Total their sum, ServerBackends
// all of them, which max_connections limits.
type PostgresReading struct {
	Backends            map[string]float64 `json:"backends"`
	Total               float64            `json:"total"`
	ServerBackends      float64            `json:"server_backends"`
	MaxConnections      float64            `json:"max_connections"`
	ReservedConnections float64            `json:"reserved_connections"`
	// RoleLimit is the role's CONNECTION LIMIT (-1 for none).
	RoleLimit *float64 `json:"role_limit,omitempty"`
	// SessionsTotal is pg_stat_database.sessions (14+): its rate, opened/s.
	SessionsTotal *float64 `json:"sessions_total,omitempty"`
	Version       int      `json:"version_num"`
}

// backendStates are always read, 0 if empty, so a chart's line starts at 0.
var backendStates = []string{"active", "idle", "idle_in_transaction", "idle_in_transaction_aborted", "fastpath_function_call", "disabled"}

// A Postgres reads a database's and role's connections over a kept one.
// Connect it as another role (a superuser), so that it takes none of the
// role's CONNECTION LIMIT and still reads when the others are refused.
type Postgres struct {
	kept
	database, role string
}

// NewPostgres returns a reader of dsn watching database and role ("": any).
func NewPostgres(dsn, database, role string) *Postgres {
	connect := func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, dsn) }
	return &Postgres{kept: kept{connect: connect}, database: database, role: role}
}

// Read reads the backends, the limits and the sessions once.
func (p *Postgres) Read(ctx context.Context) (PostgresReading, error) {
	r, err := keep(ctx, &p.kept, p.read)
	if err != nil {
		return PostgresReading{}, fmt.Errorf("postgres: %w", err)
	}
	return r, nil
}

// A kept is a connection kept between reads, reopened after a failed read.
type kept struct {
	connect func(context.Context) (*pgx.Conn, error)

	mu   sync.Mutex
	conn *pgx.Conn
}

// keep runs read on k's connection and closes it when read fails.
func keep[T any](ctx context.Context, k *kept, read func(context.Context, *pgx.Conn) (T, error)) (T, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.conn == nil {
		c, err := k.connect(ctx)
		if err != nil {
			var zero T
			return zero, err
		}
		k.conn = c
	}
	r, err := read(ctx, k.conn)
	if err != nil {
		k.conn.Close(context.Background())
		k.conn = nil
	}
	return r, err
}

// Close closes the reader's connection.
func (k *kept) Close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.conn != nil {
		k.conn.Close(context.Background())
		k.conn = nil
	}
}

func (p *Postgres) read(ctx context.Context, conn *pgx.Conn) (PostgresReading, error) {
	r := PostgresReading{Backends: make(map[string]float64, len(backendStates))}
	for _, s := range backendStates {
		r.Backends[s] = 0
	}
	err := conn.QueryRow(ctx, `SELECT current_setting('server_version_num')::int,
		current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int,
		(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')`).
		Scan(&r.Version, &r.MaxConnections, &r.ReservedConnections, &r.ServerBackends)
	if err != nil {
		return r, err
	}
	rows, err := conn.Query(ctx, `SELECT coalesce(state, 'unknown'), count(*) FROM pg_stat_activity
		WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
		AND ($1 = '' OR datname = $1) AND ($2 = '' OR usename = $2) GROUP BY 1`, p.database, p.role)
	if err != nil {
		return r, err
	}
	for rows.Next() {
		var state string
		var n float64
		if err := rows.Scan(&state, &n); err != nil {
			rows.Close()
			return r, err
		}
		r.Backends[strings.ReplaceAll(strings.TrimSpace(state), " ", "_")] += n
		r.Total += n
	}
	if err := rows.Err(); err != nil {
		return r, err
	}
	if p.role != "" {
		var limit float64
		err := conn.QueryRow(ctx, `SELECT rolconnlimit FROM pg_roles WHERE rolname = $1`, p.role).Scan(&limit)
		switch {
		case err == nil:
			r.RoleLimit = &limit
		case err != pgx.ErrNoRows:
			return r, err
		}
	}
	if r.Version >= 140000 && p.database != "" {
		var n float64
		err := conn.QueryRow(ctx, `SELECT sessions FROM pg_stat_database WHERE datname = $1`, p.database).Scan(&n)
		switch {
		case err == nil:
			r.SessionsTotal = &n
		case err != pgx.ErrNoRows:
			return r, err
		}
	}
	return r, nil
}
