package postgres

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"bbslab/entity"
)

// TestPostgresVersion checks the store's version against SHOW
// server_version on the server BBS_TEST_POSTGRES_DSN names.
func TestPostgresVersion(t *testing.T) {
	dsn := os.Getenv("BBS_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("BBS_TEST_POSTGRES_DSN not set: skipping the PostgreSQL version test")
	}
	ctx := context.Background()
	o := entity.Options{Driver: "postgres", DSN: dsn, Pool: 1, Schema: testSchema(t, dsn, "bbs_test")}
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
	v := s.(entity.Versioned)
	if v.DatabaseKind() != "postgres" || v.ServerVersion() != want || want == "" {
		t.Errorf("DatabaseKind, ServerVersion = %q, %q; want postgres, %q", v.DatabaseKind(), v.ServerVersion(), want)
	}
}
