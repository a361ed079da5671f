package entity

// A Versioned Store names its database: its kind ("sqlite" or "postgres")
// and the version of the server it talks to. The stores of entity/sqlite and
// entity/postgres are Versioned; it is a separate interface so that test fakes need not
// be.
type Versioned interface {
	// DatabaseKind is "sqlite" or "postgres".
	DatabaseKind() string
	// ServerVersion is the database's version: SQLite's sqlite_version()
	// of the linked library, PostgreSQL's server_version parameter as the
	// server reported it when the store was opened (empty if it did not).
	ServerVersion() string
}
