package postgres

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// testSchema returns a schema name no other test uses, for
// entity.Options.Schema on the server dsn names, and drops the schema with
// everything in it when the test ends.
func testSchema(t testing.TB, dsn, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s_%d_%d_%d", prefix, os.Getpid(), time.Now().UnixNano()%1e9, schemaSeq.Add(1))
	t.Cleanup(func() { dropSchema(t, dsn, name) })
	return name
}

var schemaSeq atomic.Int64

// dropSchema drops schema name and everything in it.
func dropSchema(t testing.TB, dsn, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Errorf("drop schema %s: %v", name, err)
		return
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{name}.Sanitize()+` CASCADE`); err != nil {
		t.Errorf("drop schema %s: %v", name, err)
	}
}
