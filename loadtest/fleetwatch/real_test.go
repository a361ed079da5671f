package fleetwatch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bbslab/internal/testenv"
)

// dsnParts returns the host, port and user of a PostgreSQL URL.
func dsnParts(t *testing.T, dsn string) (host, port, user string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Host, strconv.Itoa(int(cfg.Port)), cfg.User
}

// TestHAProxyReal starts a real HAProxy in front of two servers of
// maxconn 1 that hold every request until released, sends six requests,
// and reads the exporter: one session at each server, four requests
// queued at the proxy; once released, six answered, none queued, a
// highest queue of four.
func TestHAProxyReal(t *testing.T) {
	release := make(chan struct{})
	var in sync.WaitGroup
	in.Add(6)
	hold := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release; w.Write([]byte("ok")) })
	s1, s2 := httptest.NewServer(hold), httptest.NewServer(hold)
	defer s1.Close()
	defer s2.Close()
	front, metrics := StartHAProxy(t, 1, [2]string{"r1", s1.Listener.Addr().String()}, [2]string{"r2", s2.Listener.Addr().String()})
	ctx := context.Background()
	errs := make(chan error, 6)
	for range 6 {
		go func() {
			defer in.Done()
			resp, err := http.Get(front + "/")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != 200 {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			errs <- err
		}()
	}
	var r HAProxyReading
	waitFor(t, "four requests queued at the proxy", func() bool {
		var err error
		r, err = ReadHAProxy(ctx, http.DefaultClient, metrics)
		return err == nil && r.Backend.CurrentQueue == 4
	})
	if r.Servers["r1"].CurrentSessions != 1 || r.Servers["r2"].CurrentSessions != 1 || r.Backend.Up != 1 {
		t.Errorf("while held: r1 %+v, r2 %+v; want one session at each, the backend up", r.Servers["r1"], r.Servers["r2"])
	}
	close(release)
	in.Wait()
	for range 6 {
		if err := <-errs; err != nil {
			t.Fatalf("a request through HAProxy: %v", err)
		}
	}
	// HAProxy counts a response when its stream ends, a moment after the
	// client has read it.
	waitFor(t, "six responses counted", func() bool {
		var err error
		r, err = ReadHAProxy(ctx, http.DefaultClient, metrics)
		return err == nil && r.Backend.Answered == 6
	})
	if r.Backend.Answered != 6 || r.Backend.Responses["2xx"] != 6 || r.Servers["r1"].Answered+r.Servers["r2"].Answered != 6 {
		t.Errorf("after: backend answered %v (2xx %v), servers %v + %v; want 6 in all", r.Backend.Answered, r.Backend.Responses["2xx"],
			r.Servers["r1"].Answered, r.Servers["r2"].Answered)
	}
	if r.Backend.CurrentQueue != 0 || r.Backend.MaxQueue != 4 || r.Backend.SessionsTotal != 6 {
		t.Errorf("after: queue %v, max %v, sessions %v; want 0, 4, 6", r.Backend.CurrentQueue, r.Backend.MaxQueue, r.Backend.SessionsTotal)
	}
}

// connect opens a pgx connection in a mode PgBouncer's transaction
// pooling takes (no prepared statement outlives a transaction).
func connect(t *testing.T, ctx context.Context, dsn string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// TestPgBouncerReal starts a real PgBouncer in transaction mode with a
// pool of one server connection: one client holds it in a transaction
// while two others wait; the console shows one active and two waiting,
// and after the commit, none waiting and their wait counted.
func TestPgBouncerReal(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	_, _, user := dsnParts(t, dsn)
	port := StartPgBouncer(t, dsn, "test", "", "transaction", 1)
	ctx := context.Background()
	pooled := fmt.Sprintf("postgres://%s@127.0.0.1:%d/test?sslmode=disable", user, port)
	b := NewPgBouncer(fmt.Sprintf("postgres://%s@127.0.0.1:%d/pgbouncer?sslmode=disable", user, port), "test")
	defer b.Close()
	holder := connect(t, ctx, pooled)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	waiters := []*pgx.Conn{connect(t, ctx, pooled), connect(t, ctx, pooled)}
	done := make(chan error, 2)
	for _, c := range waiters {
		go func() { _, err := c.Exec(ctx, "SELECT 1"); done <- err }()
	}
	var r PgBouncerReading
	waitFor(t, "two clients waiting in PgBouncer", func() bool {
		r, err = b.Read(ctx)
		return err == nil && r.Pools.ClWaiting == 2
	})
	if r.Pools.SvActive != 1 || r.Pools.ClActive < 1 {
		t.Errorf("while held: %+v; want one server connection active, the holder's client active", r.Pools)
	}
	time.Sleep(200 * time.Millisecond)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "no client waiting, the wait counted", func() bool {
		r, err = b.Read(ctx)
		return err == nil && r.Pools.ClWaiting == 0 && r.Stats.WaitSeconds >= 0.2 && r.Stats.Xacts >= 3
	})
	if len(r.ByPool) < 2 || r.Pools.ClActive+r.Pools.ClWaiting > 3 {
		t.Errorf("after: %+v (rows %d); want the console's row and test's, at most three clients", r.Pools, len(r.ByPool))
	}
}

// TestPostgresReal makes a role of its own with CONNECTION LIMIT 3 and
// holds its three connections: one running a query, one idle in a
// transaction, one idle. The reader counts them by state and reads the
// limit; a fourth connection is refused; the sessions opened count up.
func TestPostgresReal(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	ctx := context.Background()
	admin := connect(t, ctx, dsn)
	role := fmt.Sprintf("fleetwatch_test_%d", time.Now().UnixNano()%1e9)
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN CONNECTION LIMIT 3"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	host, port, _ := dsnParts(t, dsn)
	cfg, _ := pgx.ParseConfig(dsn)
	p := NewPostgres(dsn, cfg.Database, role)
	defer p.Close()
	before, err := p.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before.Total != 0 || before.RoleLimit == nil || *before.RoleLimit != 3 || before.MaxConnections < 1 {
		t.Fatalf("before: %+v; want no backend of the new role, its limit 3", before)
	}
	roleDSN := fmt.Sprintf("postgres://%s@%s:%s/%s?sslmode=disable", role, host, port, cfg.Database)
	var conns []*pgx.Conn
	for range 3 {
		c, err := pgx.Connect(ctx, roleDSN)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	defer func() {
		for _, c := range conns {
			c.Close(context.Background())
		}
	}()
	if _, err := conns[1].Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	// The statement runs until the reads are done (cancelled then), so a
	// slow read on a busy machine still finds it active.
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	running := make(chan error, 1)
	go func() { _, err := conns[0].Exec(qctx, "SELECT pg_sleep(60)"); running <- err }()
	if c, err := pgx.Connect(ctx, roleDSN); err == nil || !strings.Contains(err.Error(), "too many connections for role") {
		if c != nil {
			c.Close(ctx)
		}
		t.Errorf("a fourth connection of the role: %v; want too many connections for role", err)
	}
	var r PostgresReading
	waitFor(t, "one active, one idle in transaction, one idle", func() bool {
		r, err = p.Read(ctx)
		return err == nil && r.Backends["active"] == 1 && r.Backends["idle_in_transaction"] == 1 && r.Backends["idle"] == 1
	})
	if r.Total != 3 || r.ServerBackends < 4 || r.Version < 140000 {
		t.Errorf("%+v; want 3 of the role, at least 4 client backends on the server (the reader's too), PostgreSQL 14 or later", r)
	}
	cancel()
	if err := <-running; err == nil {
		t.Errorf("pg_sleep(60), cancelled after the reads, ended without an error")
	}
	waitFor(t, "three more sessions opened", func() bool {
		r, err = p.Read(ctx)
		return err == nil && r.SessionsTotal != nil && before.SessionsTotal != nil && *r.SessionsTotal-*before.SessionsTotal >= 3
	})
}

// TestPostgresSessions reads pg_stat_database.sessions of a database of
// the test's own while four sessions are opened and closed there: the
// reader counts exactly those four (its own connection, to another
// database, is not one of them), as a counter the fleet serves as
// connections opened per second. A reading without the counter (a server
// before PostgreSQL 14) leaves it out of the JSON rather than read 0.
func TestPostgresSessions(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	ctx := context.Background()
	admin := connect(t, ctx, dsn)
	db := fmt.Sprintf("fleetwatch_sessions_%d", time.Now().UnixNano()%1e9)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)") })
	p := NewPostgres(dsn, db, "")
	defer p.Close()
	before, err := p.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before.SessionsTotal == nil {
		t.Fatalf("PostgreSQL %d: no sessions counter; want one (14 and later)", before.Version)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = db
	for range 4 {
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
	}
	opened := func() float64 {
		r, err := p.Read(ctx)
		if err != nil || r.SessionsTotal == nil {
			t.Fatalf("read: %v, %+v", err, r)
		}
		return *r.SessionsTotal - *before.SessionsTotal
	}
	waitFor(t, "four sessions counted", func() bool { return opened() >= 4 })
	time.Sleep(300 * time.Millisecond) // the reader's reads since: none of them a session of db
	if n := opened(); n != 4 {
		t.Errorf("sessions opened in %s = %v; want the 4 the test opened", db, n)
	}
	b, err := json.Marshal(PostgresReading{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sessions_total") {
		t.Errorf("a reading without the counter marshals %s; want no sessions_total", b)
	}
}
