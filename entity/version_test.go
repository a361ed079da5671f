package entity

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestSQLiteVersion checks the store's version against what SQLite itself
// answers to sqlite_version().
func TestSQLiteVersion(t *testing.T) {
	s := openSQLiteTest(t, Options{Pool: 1})
	v, ok := s.(Versioned)
	if !ok {
		t.Fatalf("the SQLite store %T is not Versioned", s)
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

// TestPostgresVersion checks the store's version against SHOW
// server_version on the server BBS_TEST_POSTGRES_DSN names.
func TestPostgresVersion(t *testing.T) {
	dsn := os.Getenv("BBS_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("BBS_TEST_POSTGRES_DSN not set: skipping the PostgreSQL version test")
	}
	ctx := context.Background()
	o := Options{Driver: "postgres", DSN: dsn, Pool: 1,
		Schema: fmt.Sprintf("bbs_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, schemaSeq.Add(1))}
	t.Cleanup(func() { dropSchema(t, dsn, o.Schema) })
	s, err := Open(ctx, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var want string
	if err := c.QueryRow(ctx, `SHOW server_version`).Scan(&want); err != nil {
		t.Fatalf("SHOW server_version: %v", err)
	}
	v := s.(Versioned)
	if v.DatabaseKind() != "postgres" || v.ServerVersion() != want || want == "" {
		t.Errorf("DatabaseKind, ServerVersion = %q, %q; want postgres, %q", v.DatabaseKind(), v.ServerVersion(), want)
	}
}
