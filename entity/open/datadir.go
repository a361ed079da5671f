package open

import (
	"path/filepath"
	"strings"
)

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
