package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"bbslab/entity/internal/driverkit"
)

// migrateLockKey is the advisory lock that serializes migrations on one
// PostgreSQL server.
const migrateLockKey = 0x6262736c6162 // "bbslab"

// migratePostgres applies the missing migrations in one transaction,
// holding an advisory lock so concurrent starts take turns.
func migratePostgres(ctx context.Context, c *pgx.Conn, ms []driverkit.Migration) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrateLockKey)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, driverkit.CreateMigrationsTable); err != nil {
		return err
	}
	for _, m := range ms {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, m.Version).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, m.Version); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}
