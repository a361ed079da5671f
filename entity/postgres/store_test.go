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

// TestStoreExecModes runs the contract suite with pgx's other query exec
// modes (entity.Options.ExecMode): "exec", which PgBouncer's transaction
// mode needs, and "simple_protocol". TestStoreThroughPgBouncer
// (loadtest/fleet) runs the store through a real PgBouncer.
func TestStoreExecModes(t *testing.T) {
	t.Parallel()
	dsn := testenv.PostgresDSN(t)
	for _, mode := range []string{entity.ExecExec, "simple_protocol"} {
		t.Run(mode, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T, o entity.Options) entity.Store {
				t.Helper()
				o.Driver, o.DSN, o.ExecMode = "postgres", dsn, mode
				o.Schema = testSchema(t, dsn, "bbs_exec")
				s, err := Open(context.Background(), o)
				if err != nil {
					t.Fatalf("Open(%+v): %v", o, err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			})
		})
	}
}
