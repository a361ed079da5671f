package postgres

import (
	"context"
	"testing"

	"bbslab/entity"
	"bbslab/entity/storetest"
	"bbslab/internal/testenv"
)

// TestStore runs the store contract suite on the PostgreSQL server that
// BBS_TEST_POSTGRES_DSN names, each test in a schema of its own.
func TestStore(t *testing.T) {
	t.Parallel()
	dsn := testenv.PostgresDSN(t)
	storetest.Run(t, func(t *testing.T, o entity.Options) entity.Store {
		t.Helper()
		o.Driver = "postgres"
		o.DSN = dsn
		o.Schema = testSchema(t, dsn, "bbs_test")
		s, err := Open(context.Background(), o)
		if err != nil {
			t.Fatalf("Open(%+v): %v", o, err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
