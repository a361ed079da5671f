//go:build cgo

package sqlite

import "github.com/mattn/go-sqlite3"

// DatabaseKind is "sqlite".
func (s *sqliteStore) DatabaseKind() string { return "sqlite" }

// ServerVersion is the version of the SQLite library linked in, which is
// what sqlite_version() answers; reading it takes no connection.
func (s *sqliteStore) ServerVersion() string {
	v, _, _ := sqlite3.Version()
	return v
}
