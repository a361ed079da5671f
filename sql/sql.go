// Package sql holds the board's schema migrations for each SQL dialect, as
// embedded files:
//
//	files, err := fs.ReadDir(sql.SQLite, "sqlite")
//
// It only embeds: the stores (entity/sqlite, entity/postgres) read and
// apply them. A migration is a file named NNN_description.sql; NNN is its
// version. Migrations run in version order, each once, and the versions
// applied are kept in a schema_migrations table.
package sql

import "embed"

// SQLite holds the migrations for SQLite, under the directory "sqlite".
//
//go:embed sqlite/*.sql
var SQLite embed.FS

// Postgres holds the migrations for PostgreSQL, under the directory "postgres".
//
//go:embed postgres/*.sql
var Postgres embed.FS
