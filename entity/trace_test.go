package entity

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"bbslab/internal/testenv"
)

// TestTraceSQLite checks the SQL trace on SQLite: one line per statement.
func TestTraceSQLite(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := openSQLiteTest(t, Options{Pool: 1, SeedPosts: 10, Trace: &buf})
	checkTrace(t, s, &buf, "sqlite", []string{sqliteInsert, sqliteNewest, sqliteBefore, sqliteBefore})
}

// TestTracePostgres checks the SQL trace on PostgreSQL.
func TestTracePostgres(t *testing.T) {
	t.Parallel()
	dsn := testenv.PostgresDSN(t)
	var buf bytes.Buffer
	schema := fmt.Sprintf("bbs_trace_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, schemaSeq.Add(1))
	t.Cleanup(func() { dropSchema(t, dsn, schema) })
	s, err := Open(context.Background(), Options{Driver: "postgres", DSN: dsn, Schema: schema, Pool: 1, SeedPosts: 10, Trace: &buf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	checkTrace(t, s, &buf, "postgres", []string{pgInsert, pgNewest, pgBefore, pgBefore})
}

// checkTrace runs an insert, a read of 5 posts, a read of one post and a
// read that finds none, and checks the four trace lines.
func checkTrace(t *testing.T, s Store, buf *bytes.Buffer, db string, stmts []string) {
	t.Helper()
	ctx := context.Background()
	buf.Reset() // the seed and start-up run no Conn statements, but be sure
	c, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Insert(ctx, "名前", "secret message"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Newest(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Before(ctx, MaxNo); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Before(ctx, 1); err != ErrNotFound {
		t.Fatalf("Before(1) = %v; want ErrNotFound", err)
	}
	c.Release()

	if bytes.Contains(buf.Bytes(), []byte("secret message")) {
		t.Errorf("trace holds a message body; want statements only:\n%s", buf)
	}
	wantRows := []int{1, 5, 1, 0}
	sc := bufio.NewScanner(buf)
	i := 0
	for ; sc.Scan(); i++ {
		var l struct {
			Time      time.Time `json:"time"`
			DB        string    `json:"db"`
			Statement string    `json:"statement"`
			QueryTime *float64  `json:"query_time"`
			Rows      *int      `json:"rows"`
			Error     string    `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d %q: %v", i+1, sc.Text(), err)
		}
		if i >= len(stmts) {
			t.Fatalf("extra trace line %q", sc.Text())
		}
		if l.Statement != stmts[i] || l.DB != db || l.Rows == nil || *l.Rows != wantRows[i] ||
			l.QueryTime == nil || *l.QueryTime < 0 || l.Time.IsZero() || l.Error != "" {
			t.Errorf("line %d = %s; want statement %q, db %s, rows %d, a query_time and no error", i+1, sc.Text(), stmts[i], db, wantRows[i])
		}
	}
	if i != len(stmts) {
		t.Errorf("%d trace lines; want %d", i, len(stmts))
	}
}
