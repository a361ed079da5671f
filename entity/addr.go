package entity

import (
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ServerPort returns the TCP port of the database server that driver and
// dsn name, for counting the connections to it. ok is false when there are
// no database sockets to count: SQLite runs inside the process, and a
// PostgreSQL server may be reached over a Unix socket.
func ServerPort(driver, dsn string) (port int, ok bool) {
	if driver != "postgres" {
		return 0, false
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil || strings.HasPrefix(cfg.Host, "/") || cfg.Port == 0 {
		return 0, false
	}
	return int(cfg.Port), true
}

// DataDir returns the directory of the SQLite database file that dsn names
// (a path or a "file:" DSN), where its speed is the disk's; "." for
// PostgreSQL and in-memory databases.
func DataDir(driver, dsn string) string {
	if driver != "sqlite" {
		return "."
	}
	path := strings.TrimPrefix(dsn, "file:")
	path, _, _ = strings.Cut(path, "?")
	if path == "" || strings.HasPrefix(path, ":memory:") {
		return "."
	}
	return filepath.Dir(path)
}
