package postgres

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bbslab/internal/testenv"
)

// TestPingStartsNoTransaction pings one connection a hundred times and
// counts the transactions its database's pg_stat_database.xact_commit
// gains beyond the one statement that makes the backend report them: none
// for the store's ping (a Sync alone), a hundred for pgx's Ping (an empty
// statement), the control that shows the count can see a ping.
func TestPingStartsNoTransaction(t *testing.T) {
	t.Parallel()
	dsn := testenv.PostgresDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	db := testDatabase(t, admin, "bbs_ping")
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = db

	const pings = 100
	for _, tt := range []struct {
		name string
		ping func(context.Context, *pgx.Conn) error
		min  int64 // transactions the pings may add, at least and at most
		max  int64
	}{
		// A few more at most: an autovacuum worker visits every database
		// once a minute (autovacuum_naptime), in transactions counted there.
		{"ping (Sync)", func(ctx context.Context, c *pgx.Conn) error { return ping(ctx, c.PgConn()) }, 0, pings / 10},
		{"control: pgx's Ping (an empty statement)", func(ctx context.Context, c *pgx.Conn) error { return c.Ping(ctx) }, pings, pings + pings/10},
	} {
		added, err := pingTransactions(ctx, admin, cfg, pings, tt.ping)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		t.Logf("%s: %d pings added %d transactions", tt.name, pings, added)
		if added < tt.min || added > tt.max {
			t.Errorf("%s: %d pings added %d transactions to xact_commit; want %d to %d", tt.name, pings, added, tt.min, tt.max)
		}
	}
}

// pingTransactions opens a connection with cfg, pings it n times and
// returns the transactions pg_stat_database counted for them.
//
// A backend reports its counts to pg_stat_database only with a statement
// that reads a table, and at most once a second (later ones wait for it
// to go idle for ten): so the count is read after such a statement, each
// over a second after the last, before and after the pings; the one
// after the pings is a transaction of its own, taken off.
func pingTransactions(ctx context.Context, admin *pgx.Conn, cfg *pgx.ConnConfig, n int, ping func(context.Context, *pgx.Conn) error) (int64, error) {
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return 0, err
	}
	defer c.Close(ctx)
	report := func() (int64, error) {
		time.Sleep(1100 * time.Millisecond)
		var rows, commits int64
		if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_class`, pgx.QueryExecModeSimpleProtocol).Scan(&rows); err != nil {
			return 0, err
		}
		err := admin.QueryRow(ctx, `SELECT xact_commit FROM pg_stat_database WHERE datname = $1`, cfg.Database).Scan(&commits)
		return commits, err
	}
	before, err := report()
	if err != nil {
		return 0, err
	}
	for i := range n {
		if err := ping(ctx, c); err != nil {
			return 0, fmt.Errorf("ping %d: %w", i+1, err)
		}
	}
	after, err := report()
	return after - before - 1, err
}

// testDatabase creates a database of its own for the test, whose
// pg_stat_database row no other test's statements reach, and drops it
// after.
func testDatabase(t *testing.T, admin *pgx.Conn, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s_%d_%d", prefix, os.Getpid(), time.Now().UnixNano()%1e9)
	if _, err := admin.Exec(context.Background(), `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.ConnectConfig(ctx, admin.Config())
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	return name
}
