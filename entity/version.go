package entity

import "github.com/mattn/go-sqlite3"

// A Versioned Store names its database: its kind ("sqlite" or "postgres")
// and the version of the server it talks to. Both stores of this package
// are Versioned; it is a separate interface so that test fakes need not
// be.
type Versioned interface {
	// DatabaseKind is "sqlite" or "postgres".
	DatabaseKind() string
	// ServerVersion is the database's version: SQLite's sqlite_version()
	// of the linked library, PostgreSQL's server_version parameter as the
	// server reported it when the store was opened (empty if it did not).
	ServerVersion() string
}

// DatabaseKind is "sqlite".
func (s *sqliteStore) DatabaseKind() string { return "sqlite" }

// ServerVersion is the version of the SQLite library linked in, which is
// what sqlite_version() answers; reading it takes no connection.
func (s *sqliteStore) ServerVersion() string {
	v, _, _ := sqlite3.Version()
	return v
}

// DatabaseKind is "postgres".
func (s *pgStore) DatabaseKind() string { return "postgres" }

// ServerVersion is the server_version parameter the server sent at
// start-up on the set-up connection (pgconn's ParameterStatus), so reading
// it takes no connection from the pool.
func (s *pgStore) ServerVersion() string { return s.version }
