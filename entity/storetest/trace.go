package storetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"bbslab/entity"
)

// CheckTrace runs an insert, a read of 5 posts, a read of one post and a
// read that finds none, and checks the four trace lines
// (entity.Options.Trace) that s wrote to buf: stmts are the driver's four
// statements, db its name.
func CheckTrace(t *testing.T, s entity.Store, buf *bytes.Buffer, db string, stmts []string) {
	t.Helper()
	ctx := context.Background()
	buf.Reset() // the seed and start-up run no entity.Conn statements, but be sure
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
	if _, err := c.Before(ctx, entity.MaxNo); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Before(ctx, 1); !errors.Is(err, entity.ErrNotFound) {
		t.Fatalf("Before(1) = %v; want entity.ErrNotFound", err)
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
