//go:build unix

package fleet

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"bbslab/entity"
	"bbslab/entity/postgres"
)

// TestStoreThroughPgBouncer runs the board's PostgreSQL store through a
// real PgBouncer in transaction mode with one server connection, so that
// every transaction of every client connection shares it: with pgx's
// exec mode every statement works, and with its default
// (cache_statement: named prepared statements, cached per client
// connection) the statement one client prepared is already there, or
// missing, for the next: the reason for the board's pg_exec_mode.
func TestStoreThroughPgBouncer(t *testing.T) {
	admin := need(t, "pgbouncer")
	f, err := Start(context.Background(), Spec{AdminDSN: admin, WorkDir: t.TempDir(), ConnLimit: 3, PgBouncer: &PgBouncerSpec{Mode: ModeTransaction, PoolSize: 1}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	procs := f.procs
	defer func() {
		if err := f.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
		checkNothingLeft(t, admin, f.Role.Name, procs)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	if err := useStore(ctx, f.DSN, entity.ExecExec); err != nil {
		t.Errorf("exec mode through PgBouncer (transaction): %v", err)
	}
	err = useStore(ctx, f.DSN, entity.ExecCacheStatement)
	if err == nil || !strings.Contains(err.Error(), "prepared statement") {
		t.Errorf("cache_statement through PgBouncer (transaction) = %v; want prepared statements colliding", err)
	}
	t.Logf("cache_statement: %v", err)
}

// useStore opens the store at dsn in mode (4 client connections), resets
// it to 50 posts, then has each connection run every statement of the
// store in turn, checking what it reads.
func useStore(ctx context.Context, dsn, mode string) error {
	s, err := postgres.Open(ctx, entity.Options{DSN: dsn, Pool: 4, SeedPosts: 50, ExecMode: mode})
	if err != nil {
		return err
	}
	defer s.Close()
	if n, err := s.Reset(ctx, 50); err != nil || n != 50 {
		return fmt.Errorf("reset: %d posts, %v", n, err)
	}
	var conns []entity.Conn
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	for range 4 {
		c, err := s.Acquire(ctx)
		if err != nil {
			return err
		}
		conns = append(conns, c)
	}
	for round := range 3 {
		for i, c := range conns {
			p, err := c.Insert(ctx, "fleet", fmt.Sprintf("conn %d round %d", i, round))
			if err != nil {
				return fmt.Errorf("conn %d: insert: %w", i, err)
			}
			posts, err := c.Newest(ctx, 5)
			if err != nil {
				return fmt.Errorf("conn %d: newest: %w", i, err)
			}
			if len(posts) != 5 || posts[0].No != p.No {
				return fmt.Errorf("conn %d: newest after inserting %d: %d posts, first %+v", i, p.No, len(posts), posts)
			}
			b, err := c.Before(ctx, p.No)
			if err != nil || b.No != p.No-1 {
				return fmt.Errorf("conn %d: before %d: %+v, %v", i, p.No, b, err)
			}
		}
	}
	return nil
}
