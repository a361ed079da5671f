package driverkit

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"

	"bbslab/entity"
)

// unavailableError marks an error as entity.ErrUnavailable while keeping the
// driver's error in the chain for logs and errors.As.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string   { return "database unavailable: " + e.err.Error() }
func (e *unavailableError) Unwrap() []error { return []error{entity.ErrUnavailable, e.err} }

// Classify returns err, wrapped so that errors.Is(err, entity.ErrUnavailable)
// holds when it says the database cannot be reached or is busy for now: when
// driverUnavailable (the driver's own test of its error codes) says so, or
// when it is a lost connection (lostConnection). Context errors, nil,
// entity.ErrNotFound and errors already classified stay as they are. Drivers call
// it on every error they return, so that callers classify by sentinel
// alone.
func Classify(err error, driverUnavailable func(error) bool) error {
	if err == nil || errors.Is(err, entity.ErrUnavailable) || errors.Is(err, entity.ErrNotFound) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if (driverUnavailable != nil && driverUnavailable(err)) || lostConnection(err) {
		return &unavailableError{err: err}
	}
	return err
}

// Unavailable wraps err as entity.ErrUnavailable unconditionally (unless it is a
// context error), for states a driver detects itself, such as a closed
// store.
func Unavailable(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &unavailableError{err: err}
}

// lostConnection reports whether err says the connection to the database
// failed, by type rather than message: a network error, database/sql's
// driver.ErrBadConn or sql.ErrConnDone.
func lostConnection(err error) bool {
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone)
}
