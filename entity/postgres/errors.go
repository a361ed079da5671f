package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"bbslab/entity/internal/driverkit"
)

// classify marks err as entity.ErrUnavailable when PostgreSQL or pgx says
// the server cannot be reached or refuses connections for now, or the
// connection is lost (driverkit.Classify).
func classify(err error) error { return driverkit.Classify(err, isUnavailable) }

// isUnavailable reports whether err is a PostgreSQL error that may pass
// when retried later, by its SQLSTATE code, or a failed connect.
func isUnavailable(err error) bool {
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
	return errors.As(err, &connectErr)
}
