package open

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"bbslab/entity"
	"bbslab/entity/sqlite"
)

// TestStoreDispatches checks that each driver name reaches its driver and
// that any other is refused with an error naming it.
func TestStoreDispatches(t *testing.T) {
	_, err := Store(context.Background(), entity.Options{Driver: "mysql", DSN: "x", Pool: 1})
	if err == nil || !strings.Contains(err.Error(), `"mysql"`) {
		t.Errorf(`Store(driver "mysql") = %v; want an error naming the driver`, err)
	}
	// An option only PostgreSQL checks (its DSN must parse) tells the
	// drivers apart without a server.
	_, err = Store(context.Background(), entity.Options{Driver: "postgres", DSN: "postgres://%zz", Pool: 1})
	if err == nil || !strings.Contains(err.Error(), "open postgres") {
		t.Errorf("Store(driver postgres, bad DSN) = %v; want the PostgreSQL driver's error", err)
	}
	if !sqlite.Available {
		_, err := Store(context.Background(), entity.Options{Driver: "sqlite", DSN: "x", Pool: 1})
		if !errors.Is(err, sqlite.ErrNoCgo) {
			t.Errorf("Store(driver sqlite) without cgo = %v; want sqlite.ErrNoCgo", err)
		}
		return
	}
	s, err := Store(context.Background(), entity.Options{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "bbs.db"), Pool: 1})
	if err != nil {
		t.Fatalf("Store(driver sqlite): %v", err)
	}
	defer s.Close()
	if v, ok := s.(entity.Versioned); !ok || v.DatabaseKind() != "sqlite" {
		t.Errorf("Store(driver sqlite) = %T; want the SQLite store", s)
	}
}
