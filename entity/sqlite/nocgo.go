//go:build !cgo

package sqlite

import (
	"context"

	"bbslab/entity"
)

// Available reports whether this build can open SQLite databases:
// mattn/go-sqlite3 is a cgo package, and it compiles without cgo into a
// driver that fails at run time.
const Available = false

// Open checks o like the cgo build's Open, then fails with ErrNoCgo: this
// build has no SQLite.
func Open(ctx context.Context, o entity.Options) (entity.Store, error) {
	if o.Driver == "" {
		o.Driver = "sqlite"
	}
	if _, err := o.Normalize(); err != nil {
		return nil, err
	}
	return nil, ErrNoCgo
}
