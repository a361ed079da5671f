// Package sqlite is the board's store on SQLite (mattn/go-sqlite3, which
// needs cgo):
//
//	store, err := sqlite.Open(ctx, entity.Options{DSN: "bbs.db", Pool: 5})
//
// It is an entity.Store pooled by database/sql, with the schema from package
// sql applied at Open. Connections are handed out explicitly (Acquire,
// statements on the Conn, Release), as entity.Store describes. SQLITE_BUSY
// is retried in slices so that a statement waiting on the writer lock stays
// cancellable.
//
// mattn/go-sqlite3 compiles without cgo only into a stub that fails at run
// time, so the driver is built with cgo alone; without it, Open fails with
// ErrNoCgo, which says what to do, and Available is false.
package sqlite

import "errors"

// ErrNoCgo is Open's error in a build without cgo, where mattn/go-sqlite3
// compiles into a stub that fails at run time.
var ErrNoCgo = errors.New("built with CGO_ENABLED=0: SQLite is unavailable; use -db postgres or rebuild with cgo")
