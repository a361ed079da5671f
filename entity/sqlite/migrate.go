//go:build cgo

package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"bbslab/entity/internal/driverkit"
)

// migrateSQLite applies the missing migrations in one transaction (an
// immediate one with the default DSN, so two processes take turns).
func migrateSQLite(ctx context.Context, db *sql.DB, ms []driverkit.Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, driverkit.CreateMigrationsTable); err != nil {
		return err
	}
	for _, m := range ms {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version) VALUES (?)`, m.Version); err != nil {
			return err
		}
	}
	return tx.Commit()
}
