//go:build cgo

package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"bbslab/entity"
)

// TestStatementsCheckContext checks that a statement does not start once
// the request's context has ended (statementContext): each of the three
// fails with the context's error and the connection counts nothing sent,
// while the same connection still answers under a live context.
func TestStatementsCheckContext(t *testing.T) {
	s := openTest(t, entity.Options{Pool: 1, SeedPosts: 5})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	ctxs := []struct {
		name string
		ctx  context.Context
		want error
	}{{"canceled", canceled, context.Canceled}, {"past deadline", expired, context.DeadlineExceeded}}
	for _, cc := range ctxs {
		stmts := []struct {
			name string
			run  func(c entity.Conn) error
		}{
			{"Newest", func(c entity.Conn) error { _, err := c.Newest(cc.ctx, 3); return err }},
			{"Before", func(c entity.Conn) error { _, err := c.Before(cc.ctx, entity.MaxNo); return err }},
			{"Insert", func(c entity.Conn) error { _, err := c.Insert(cc.ctx, "a", "b"); return err }},
		}
		for _, st := range stmts {
			c, err := s.Acquire(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			err = st.run(c)
			if !errors.Is(err, cc.want) || c.Statements() != 0 {
				t.Errorf("%s with a %s context = %v after %d statements sent; want %v after 0", st.name, cc.name, err, c.Statements(), cc.want)
			}
			if posts, err := c.Newest(context.Background(), 3); err != nil || len(posts) != 3 {
				t.Errorf("Newest after %s with a %s context = %d posts, %v; want 3, nil", st.name, cc.name, len(posts), err)
			}
			c.Release()
		}
	}
}
