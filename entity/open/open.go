// Package open opens the store a configuration names: Store dispatches
// entity.Options.Driver to entity/sqlite or entity/postgres. DataDir names
// the directory a configuration's database lives in, for the disk
// benchmark.
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
