//go:build cgo

package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"bbslab/entity"
	"bbslab/entity/storetest"
)

// TestStore runs the store contract suite on a SQLite file in a temp dir.
func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, openTest)
}

// openTest opens a SQLite store on a new file for the test, closed when it
// ends.
func openTest(t *testing.T, o entity.Options) entity.Store {
	t.Helper()
	o.Driver = "sqlite"
	o.DSN = filepath.Join(t.TempDir(), "bbs.db")
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatalf("Open(%+v): %v", o, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
