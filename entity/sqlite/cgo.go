//go:build cgo

package sqlite

// Available reports whether this build can open SQLite databases:
// mattn/go-sqlite3 is a cgo package, and it compiles without cgo into a
// driver that fails at run time.
const Available = true
