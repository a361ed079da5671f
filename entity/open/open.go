// Package open opens the store a configuration names:
//
//	store, err := open.Store(ctx, entity.Options{Driver: cfg.DB, DSN: cfg.DSN, Pool: cfg.Pool})
//	dir := open.DataDir(cfg.DB, cfg.DSN) // where a SQLite database's files are
//
// Store dispatches entity.Options.Driver to entity/sqlite or
// entity/postgres; DataDir and DataFiles name the directory and the files a
// SQLite DSN's database lives in, for the disk benchmark.
//
// It is a package of its own so that entity, which holds the domain, needs
// neither driver (nor cgo): only the binary and the tests that open a real
// store import it. A package that knows its driver calls sqlite.Open or
// postgres.Open directly.
package open

import (
	"context"
	"fmt"

	"bbslab/entity"
	"bbslab/entity/postgres"
	"bbslab/entity/sqlite"
)

// Store opens the database that o names with the driver o.Driver names
// ("sqlite" or "postgres"); see sqlite.Open and postgres.Open.
func Store(ctx context.Context, o entity.Options) (entity.Store, error) {
	switch o.Driver {
	case "sqlite":
		return sqlite.Open(ctx, o)
	case "postgres":
		return postgres.Open(ctx, o)
	default:
		return nil, fmt.Errorf("open store: driver %q: want \"sqlite\" or \"postgres\"", o.Driver)
	}
}
