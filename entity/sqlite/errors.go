//go:build cgo

package sqlite

import (
	"errors"

	"github.com/mattn/go-sqlite3"

	"bbslab/entity/internal/driverkit"
)

// classify marks err as entity.ErrUnavailable when SQLite says the
// database is busy, locked or cannot be opened, or the connection is lost
// (driverkit.Classify).
func classify(err error) error { return driverkit.Classify(err, isUnavailable) }

// isUnavailable reports whether err is an SQLite error that may pass when
// retried later, by its result code.
func isUnavailable(err error) bool {
	var sqliteErr sqlite3.Error
	if errors.As(err, &sqliteErr) {
		switch sqliteErr.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrCantOpen:
			return true
		}
	}
	return false
}
