//go:build cgo

package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"

	"bbslab/entity"
)

// TestSQLiteVersion checks the store's version against what SQLite itself
// answers to sqlite_version().
func TestSQLiteVersion(t *testing.T) {
	s := openTest(t, entity.Options{Pool: 1})
	v, ok := s.(entity.Versioned)
	if !ok {
		t.Fatalf("the SQLite store %T is not entity.Versioned", s)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var want string
	if err := db.QueryRow(`SELECT sqlite_version()`).Scan(&want); err != nil {
		t.Fatalf("SELECT sqlite_version(): %v", err)
	}
	if v.DatabaseKind() != "sqlite" || v.ServerVersion() != want || want == "" {
		t.Errorf("DatabaseKind, ServerVersion = %q, %q; want sqlite, %q", v.DatabaseKind(), v.ServerVersion(), want)
	}
}
