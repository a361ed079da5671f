//go:build unix

package fleet

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// statsSettle is how long the test waits for PostgreSQL's counts to reach
// pg_stat_database while the backends live: a backend reports them at
// most once a second, and what it did less than a second after its last
// report waits until it has been idle for ten seconds. A backend that
// exits reports what it holds as it exits, so the count after the load
// is read once the fleet's backends are terminated (flushed), not after
// this wait.
const statsSettle = 11 * time.Second

// TestFleetTransactionsMatchHeaders is issue 44's count that adds up
// through the fleet: 300 EachGetView requests of 10 statements, one after
// the other, through HAProxy to two replicas, straight to PostgreSQL and
// through PgBouncer in transaction mode. The fleet's own database commits
// as many transactions as the replicas' X-BBS-Queries headers sum, within
// 1 %, as on one board. HAProxy checks each replica's /readyz twice a
// second all along, so a ready check that commits a transaction (as pgx's
// Ping does) fails it; PgBouncer's server_check_query runs only on a
// server connection idle for 30 s, longer than the test waits. The count
// before the load waits for the start's transactions to be reported
// (statsSettle); the count after it terminates the fleet's backends,
// which report theirs as they exit.
func TestFleetTransactionsMatchHeaders(t *testing.T) {
	admin := need(t, "haproxy", "pgbouncer")
	for _, tt := range []struct {
		name string
		pgb  *PgBouncerSpec
	}{
		{"direct", nil},
		{"pgbouncer-transaction", &PgBouncerSpec{Mode: ModeTransaction, PoolSize: 4}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each waits for the counts twice
			s := boardSpec(t, admin, 2, 3)
			s.PgBouncer = tt.pgb
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			f, err := Start(ctx, s)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			defer func() {
				if err := f.Stop(); err != nil {
					t.Errorf("Stop: %v", err)
				}
			}()
			const requests, n = 300, 10
			time.Sleep(statsSettle)
			before := commits(t, ctx, admin, f.Role.Name, false)
			queries := sumQueries(t, ctx, fmt.Sprintf("%s/bbs?cmd=EachGetView&n=%d", f.URL, n), requests)
			after := commits(t, ctx, admin, f.Role.Name, true)
			got := after.commit - before.commit
			t.Logf("%d requests: X-BBS-Queries sum %d; database %s: xact_commit %d -> %d (+%d), xact_rollback +%d",
				requests, queries, f.Role.Name, before.commit, after.commit, got, after.rollback-before.rollback)
			if queries != requests*n {
				t.Errorf("X-BBS-Queries sum %d over %d requests; want %d (EachGetView: a statement per post)", queries, requests, requests*n)
			}
			if diff := math.Abs(float64(got - queries)); diff > 0.01*float64(queries) {
				t.Errorf("the database committed %d transactions, the headers say %d statements: %+.1f %%; want within 1 %%",
					got, queries, 100*float64(got-queries)/float64(queries))
			}
			if errs := f.Exits(); len(errs) > 0 {
				t.Errorf("processes exited during the test: %v", errs)
			}
		})
	}
}

// xacts is a database's row of pg_stat_database: transactions committed
// and rolled back.
type xacts struct{ commit, rollback int64 }

// commits reads db's transactions over admin; with flush, it first
// terminates db's backends and waits until each has exited, reporting
// its counts as it went (the caller waits statsSettle otherwise).
func commits(t *testing.T, ctx context.Context, admin, db string, flush bool) xacts {
	t.Helper()
	c, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if flush {
		var n, gone int
		if err := c.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)) FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`, db).Scan(&n, &gone); err != nil {
			t.Fatalf("terminate the backends of %s: %v", db, err)
		}
		if n == 0 || gone != n {
			t.Fatalf("%d of %d backends of %s terminated and gone; want every one, and some", gone, n, db)
		}
	}
	var x xacts
	if err := c.QueryRow(ctx, `SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = $1`, db).Scan(&x.commit, &x.rollback); err != nil {
		t.Fatalf("pg_stat_database of %s: %v", db, err)
	}
	return x
}

// sumQueries sends url n GET requests, one after the other, and sums
// their X-BBS-Queries headers; any answer but 200 fails the test.
func sumQueries(t *testing.T, ctx context.Context, url string, n int) int64 {
	t.Helper()
	var sum int64
	for i := range n {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		q, err := strconv.ParseInt(resp.Header.Get("X-BBS-Queries"), 10, 64)
		if resp.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("request %d: %s, X-BBS-Queries %q; want 200 and a count", i+1, resp.Status, resp.Header.Get("X-BBS-Queries"))
		}
		sum += q
	}
	return sum
}
