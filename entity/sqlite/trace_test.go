//go:build cgo

package sqlite

import (
	"bytes"
	"testing"

	"bbslab/entity"
	"bbslab/entity/storetest"
)

// TestTraceSQLite checks the SQL trace on SQLite: one line per statement.
func TestTraceSQLite(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := openTest(t, entity.Options{Pool: 1, SeedPosts: 10, Trace: &buf})
	storetest.CheckTrace(t, s, &buf, "sqlite", []string{sqliteInsert, sqliteNewest, sqliteBefore, sqliteBefore})
}
