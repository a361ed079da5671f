package postgres

import (
	"context"
	"testing"

	"bbslab/entity"
	"bbslab/entity/storetest"
	"bbslab/internal/testenv"
)

// BenchmarkStore measures one pooled acquire and release on PostgreSQL
// (driverkit.Pool), with each validation on borrow, and one single-row query for
// scale (storetest.Bench), on the server BBS_TEST_POSTGRES_DSN names.
func BenchmarkStore(b *testing.B) {
	dsn := testenv.PostgresDSN(b)
	storetest.Bench(b, func(b *testing.B, o entity.Options) entity.Store {
		o.Driver = "postgres"
		o.DSN = dsn
		o.Schema = testSchema(b, dsn, "bbs_bench")
		s, err := Open(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
