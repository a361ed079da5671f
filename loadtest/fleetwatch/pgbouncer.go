package fleetwatch

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// A Pool is a SHOW POOLS row (or several added up, MaxWaitSeconds the largest).
type Pool struct {
	Database       string  `json:"database,omitempty"`
	User           string  `json:"user,omitempty"`
	Mode           string  `json:"pool_mode,omitempty"`
	ClActive       float64 `json:"cl_active"`
	ClWaiting      float64 `json:"cl_waiting"`
	SvActive       float64 `json:"sv_active"`
	SvIdle         float64 `json:"sv_idle"`
	SvUsed         float64 `json:"sv_used"`
	SvTested       float64 `json:"sv_tested"`
	SvLogin        float64 `json:"sv_login"`
	MaxWaitSeconds float64 `json:"maxwait_seconds"`
}

// PoolStats is a SHOW STATS row (or several added up), times in seconds; the
// wait's rate is the mean clients waiting for a server (Little's law).
type PoolStats struct {
	Database     string  `json:"database,omitempty"`
	Xacts        float64 `json:"xact_total"`
	Queries      float64 `json:"query_total"`
	XactSeconds  float64 `json:"xact_seconds_total"`
	QuerySeconds float64 `json:"query_seconds_total"`
	WaitSeconds  float64 `json:"wait_seconds_total"`
}

// A PgBouncerReading is one console read: Pools and Stats add up the rows
// addUp keeps; ByPool and ByDatabase are the rows as read.
type PgBouncerReading struct {
	Pools      Pool        `json:"pools"`
	Stats      PoolStats   `json:"stats"`
	ByPool     []Pool      `json:"by_pool"`
	ByDatabase []PoolStats `json:"by_database"`
}

// A PgBouncer reads PgBouncer's console (simple protocol only) over a kept conn.
type PgBouncer struct {
	kept
	database string
}

// NewPgBouncer returns a reader of the console at dsn; database: see addUp.
func NewPgBouncer(dsn, database string) *PgBouncer {
	connect := func(ctx context.Context) (*pgx.Conn, error) {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, fmt.Errorf("pgbouncer console: %w", err)
		}
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		cfg.StatementCacheCapacity, cfg.DescriptionCacheCapacity = 0, 0
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("pgbouncer console: %w", err)
		}
		return c, nil
	}
	return &PgBouncer{kept: kept{connect: connect}, database: database}
}

// Read runs SHOW POOLS and SHOW STATS once.
func (b *PgBouncer) Read(ctx context.Context) (PgBouncerReading, error) {
	return keep(ctx, &b.kept, b.read)
}

func (b *PgBouncer) read(ctx context.Context, conn *pgx.Conn) (PgBouncerReading, error) {
	cols, rows, err := textQuery(ctx, conn, "SHOW POOLS")
	if err != nil {
		return PgBouncerReading{}, err
	}
	pools, err := ParsePools(cols, rows)
	if err != nil {
		return PgBouncerReading{}, err
	}
	cols, rows, err = textQuery(ctx, conn, "SHOW STATS")
	if err != nil {
		return PgBouncerReading{}, err
	}
	stats, err := ParseStats(cols, rows)
	if err != nil {
		return PgBouncerReading{}, err
	}
	return addUp(pools, stats, b.database), nil
}

// textQuery runs q and returns its column names and rows as text (NULL as "").
func textQuery(ctx context.Context, c *pgx.Conn, q string) ([]string, [][]string, error) {
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("pgbouncer console: %s: %w", q, err)
	}
	defer rows.Close()
	var cols []string
	for _, fd := range rows.FieldDescriptions() {
		cols = append(cols, fd.Name)
	}
	var out [][]string
	for rows.Next() {
		raw := rows.RawValues()
		row := make([]string, len(raw))
		for i, v := range raw {
			row[i] = string(v)
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("pgbouncer console: %s: %w", q, err)
	}
	return cols, out, nil
}

// columns finds each of want among cols.
func columns(what string, cols []string, want ...string) (map[string]int, error) {
	at := make(map[string]int, len(cols))
	for i, c := range cols {
		at[c] = i
	}
	for _, w := range want {
		if _, ok := at[w]; !ok {
			return nil, fmt.Errorf("pgbouncer %s: no column %q among %v", what, w, cols)
		}
	}
	return at, nil
}

// number reads column name in row: 0 when this PgBouncer's version lacks it.
func number(at map[string]int, row []string, name string) (float64, error) {
	i, ok := at[name]
	if !ok || i >= len(row) || row[i] == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(row[i], 64)
	if err != nil {
		return 0, fmt.Errorf("column %s: %q is not a number", name, row[i])
	}
	return v, nil
}

// ParsePools reads SHOW POOLS's rows, by column name as versions add some.
func ParsePools(cols []string, rows [][]string) ([]Pool, error) {
	at, err := columns("SHOW POOLS", cols, "database", "user", "cl_active", "cl_waiting", "sv_active", "sv_idle")
	if err != nil {
		return nil, err
	}
	out := make([]Pool, 0, len(rows))
	for _, row := range rows {
		p := Pool{Database: row[at["database"]], User: row[at["user"]]}
		if i, ok := at["pool_mode"]; ok && i < len(row) {
			p.Mode = row[i]
		}
		var us float64
		for _, f := range []struct {
			name string
			to   *float64
		}{{"cl_active", &p.ClActive}, {"cl_waiting", &p.ClWaiting}, {"sv_active", &p.SvActive}, {"sv_idle", &p.SvIdle},
			{"sv_used", &p.SvUsed}, {"sv_tested", &p.SvTested}, {"sv_login", &p.SvLogin}, {"maxwait", &p.MaxWaitSeconds}, {"maxwait_us", &us}} {
			if *f.to, err = number(at, row, f.name); err != nil {
				return nil, fmt.Errorf("pgbouncer SHOW POOLS: %s/%s: %w", p.Database, p.User, err)
			}
		}
		p.MaxWaitSeconds += us / 1e6
		out = append(out, p)
	}
	return out, nil
}

// ParseStats reads SHOW STATS's rows; the times come in microseconds.
func ParseStats(cols []string, rows [][]string) ([]PoolStats, error) {
	at, err := columns("SHOW STATS", cols, "database", "total_xact_count", "total_query_count", "total_wait_time")
	if err != nil {
		return nil, err
	}
	out := make([]PoolStats, 0, len(rows))
	for _, row := range rows {
		s := PoolStats{Database: row[at["database"]]}
		for _, f := range []struct {
			name  string
			to    *float64
			scale float64
		}{{"total_xact_count", &s.Xacts, 1}, {"total_query_count", &s.Queries, 1}, {"total_xact_time", &s.XactSeconds, 1e-6},
			{"total_query_time", &s.QuerySeconds, 1e-6}, {"total_wait_time", &s.WaitSeconds, 1e-6}} {
			v, err := number(at, row, f.name)
			if err != nil {
				return nil, fmt.Errorf("pgbouncer SHOW STATS: %s: %w", s.Database, err)
			}
			*f.to = v * f.scale
		}
		out = append(out, s)
	}
	return out, nil
}

// addUp sums pools and stats over database, or all but the console's.
func addUp(pools []Pool, stats []PoolStats, database string) PgBouncerReading {
	r := PgBouncerReading{ByPool: pools, ByDatabase: stats}
	keep := func(db string) bool {
		if database != "" {
			return db == database
		}
		return db != "pgbouncer"
	}
	for _, p := range pools {
		if !keep(p.Database) {
			continue
		}
		s := &r.Pools
		s.ClActive += p.ClActive
		s.ClWaiting += p.ClWaiting
		s.SvActive += p.SvActive
		s.SvIdle += p.SvIdle
		s.SvUsed += p.SvUsed
		s.SvTested += p.SvTested
		s.SvLogin += p.SvLogin
		s.MaxWaitSeconds = max(s.MaxWaitSeconds, p.MaxWaitSeconds)
	}
	for _, st := range stats {
		if !keep(st.Database) {
			continue
		}
		s := &r.Stats
		s.Xacts += st.Xacts
		s.Queries += st.Queries
		s.XactSeconds += st.XactSeconds
		s.QuerySeconds += st.QuerySeconds
		s.WaitSeconds += st.WaitSeconds
	}
	return r
}
