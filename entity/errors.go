package entity

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

// unavailableError marks an error as ErrUnavailable while keeping the
// driver's error in the chain for logs and errors.As.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string   { return "database unavailable: " + e.err.Error() }
func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.err} }

// classify returns err, wrapped so that errors.Is(err, ErrUnavailable) holds
// when it says the database cannot be reached or is busy for now. Context
// errors stay context errors. Detection uses error types and codes only.
func classify(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || errors.Is(err, ErrNotFound) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if isUnavailable(err) {
		return &unavailableError{err: err}
	}
	return err
}

// unavailable wraps err as ErrUnavailable unconditionally (unless it is a
// context error), for states we detect ourselves, such as a closed store.
func unavailable(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &unavailableError{err: err}
}

func isUnavailable(err error) bool {
	var sqliteErr sqlite3.Error
	if errors.As(err, &sqliteErr) {
		switch sqliteErr.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrCantOpen:
			return true
		}
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case len(pgErr.Code) == 5 && pgErr.Code[:2] == "08": // connection exception
			return true
		case pgErr.Code == "57P01", // admin_shutdown
			pgErr.Code == "57P02", // crash_shutdown
			pgErr.Code == "57P03", // cannot_connect_now
			pgErr.Code == "53300": // too_many_connections
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone)
}
