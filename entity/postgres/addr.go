package postgres

import (
	"strings"

	"github.com/jackc/pgx/v5"
)

// ServerPort returns the TCP port of the PostgreSQL server that dsn names,
// for counting the connections to it. ok is false when there are no
// sockets to count: the server may be reached over a Unix socket, or dsn
// does not parse.
func ServerPort(dsn string) (port int, ok bool) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil || strings.HasPrefix(cfg.Host, "/") || cfg.Port == 0 {
		return 0, false
	}
	return int(cfg.Port), true
}
