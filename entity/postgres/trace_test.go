package postgres

import (
	"bytes"
	"context"
	"testing"

	"bbslab/entity"
	"bbslab/entity/storetest"
	"bbslab/internal/testenv"
)

// TestTracePostgres checks the SQL trace on PostgreSQL.
func TestTracePostgres(t *testing.T) {
	t.Parallel()
	dsn := testenv.PostgresDSN(t)
	var buf bytes.Buffer
	schema := testSchema(t, dsn, "bbs_trace")
	s, err := Open(context.Background(), entity.Options{Driver: "postgres", DSN: dsn, Schema: schema, Pool: 1, SeedPosts: 10, Trace: &buf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	storetest.CheckTrace(t, s, &buf, "postgres", []string{pgInsert, pgNewest, pgBefore, pgBefore})
}
