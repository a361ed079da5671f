package main

import (
	"bbslab/internal/cli"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// leaks are texts that must never reach a user: driver messages, SQL
// states, stacks.
var leaks = []string{"SQLSTATE", "pgx", "pgconn", "FATAL", "terminat", "goroutine", "panic", ".go:", "unexpected EOF", "connection reset", "sqlite"}

// outcome is one answer seen by a load loop.
type outcome struct {
	at   time.Time // when the answer came
	code int       // 0: transport error
	body string
}

// TestPostgresBackendsTerminated terminates every backend of the pool in
// the middle of load and checks that the failures are 503s with a short
// message, and that full service is back within 5 s without a restart.
func TestPostgresBackendsTerminated(t *testing.T) {
	dsn, _, app := pgDSN(t, "term")
	s := start(t, "-db", "postgres", "-dsn", dsn, "-seed-posts", "100", "-pool", "4", "-workers", "4", "-queue", "50")

	var (
		mu   sync.Mutex
		outs []outcome
		wg   sync.WaitGroup
	)
	stop := make(chan struct{})
	client := &http.Client{Timeout: 10 * time.Second}
	for c := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmds := []string{"AllView", "OnceGetView", "EachGetView"}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				form := url.Values{"cmd": {cmds[i%3]}, "format": {"json"}, "n": {"10"}}
				if i%2 == 0 {
					form.Set("message", fmt.Sprintf("load %d-%d", c, i))
				}
				o := outcome{}
				resp, err := client.PostForm(s.board, form)
				if err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					o.code, o.body = resp.StatusCode, string(b)
				}
				o.at = time.Now()
				mu.Lock()
				outs = append(outs, o)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	killedAt := time.Now()
	killed, err := terminateBackends(app)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5500 * time.Millisecond)
	close(stop)
	wg.Wait()

	if killed < 4 {
		t.Errorf("terminated %d backends; want the pool's 4", killed)
	}
	var lastBad time.Time
	failures, after := 0, 0
	for _, o := range outs {
		if o.code == 200 {
			if o.at.After(killedAt) {
				after++
			}
			continue
		}
		failures++
		if o.at.After(lastBad) {
			lastBad = o.at
		}
		if o.code != 503 {
			t.Errorf("answer %d %q during backend termination; want 503", o.code, o.body)
			continue
		}
		if len(o.body) > 200 || !strings.Contains(o.body, "retry shortly") {
			t.Errorf("503 body %q; want a short message", o.body)
		}
		for _, l := range leaks {
			if strings.Contains(o.body, l) {
				t.Errorf("503 body %q leaks %q", o.body, l)
			}
		}
	}
	recovery := time.Duration(0)
	if failures > 0 {
		recovery = lastBad.Sub(killedAt)
	}
	t.Logf("%d backends terminated under load: %d requests, %d failed (503), last failure %v after the termination, %d successes after it",
		killed, len(outs), failures, recovery.Round(time.Millisecond), after)
	if recovery > 5*time.Second {
		t.Errorf("failures went on for %v after the termination; want full service within 5 s", recovery)
	}
	if after < 20 {
		t.Errorf("only %d successful requests after the termination", after)
	}
	resp, err := http.Get(s.admin + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("readyz after recovery: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestPostgresDisconnectCancelsQuery holds a lock on the posts table so
// that the server's query waits, lets the client leave, and checks that the
// query is gone from pg_stat_activity: PostgreSQL was asked to cancel it.
// A request past request_timeout is checked the same way.
func TestPostgresDisconnectCancelsQuery(t *testing.T) {
	dsn, schema, app := pgDSN(t, "cancel")
	s := start(t, "-db", "postgres", "-dsn", dsn, "-seed-posts", "20", "-pool", "2", "-request-timeout", "1s")
	ctx := context.Background()
	locker, err := pgx.Connect(ctx, os.Getenv("BBS_TEST_POSTGRES_DSN"))
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE "+schema+".posts IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	waiting := func() int {
		var n int
		if err := locker.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// A client that leaves after 300 ms.
	client := &http.Client{Timeout: 300 * time.Millisecond}
	if _, _, _, err := postJSON(client, s.board, "AllView", "leaves"); err == nil {
		t.Fatal("the post answered while the table was locked")
	}
	if !eventually(3*time.Second, func() bool { return waiting() == 0 }) {
		t.Errorf("the query of a client that left still waits in PostgreSQL")
	}

	// A request past its 1 s deadline.
	code, body, took, err := postJSON(http.DefaultClient, s.board, "AllView", "deadline")
	if err != nil || code != 503 || !strings.Contains(body, "took too long") {
		t.Errorf("post past its deadline: %d %q %v; want 503 saying it took too long", code, body, err)
	}
	if took > 4*time.Second {
		t.Errorf("post past a 1 s deadline answered after %v", took)
	}
	if n := waiting(); n != 0 {
		t.Errorf("%d queries still wait in PostgreSQL after the deadline", n)
	}
	tx.Rollback(ctx)
	if code, a := call(t, s.board, url.Values{"cmd": {"AllView"}, "n": {"3"}}); code != 200 || len(a.Posts) != 3 {
		t.Errorf("after the lock: %d, %d posts", code, len(a.Posts))
	}
	if n := num(adminStats(t, s.admin), "db_pool.open"); n != 2 {
		t.Errorf("pool has %v connections after the cancels; want 2 (cancelled, not cut)", n)
	}
}

// TestDBWaitAndReadyz starts the server while the database cannot be
// reached (a cut proxy in front of PostgreSQL) with db_wait set: while it
// waits, /healthz answers 200 and /readyz and the board 503 saying why.
// Then it brings the database up, then cuts it again: /readyz reports not
// ready, the board answers 503, and both recover when the database is back.
func TestDBWaitAndReadyz(t *testing.T) {
	dsn, _, _ := pgDSN(t, "wait")
	u, _ := url.Parse(dsn)
	p := &proxy{addr: freeAddr(t), to: u.Host}
	u.Host = p.addr
	defer p.down()
	go func() {
		time.Sleep(1200 * time.Millisecond)
		if err := p.up(); err != nil {
			t.Error(err)
		}
	}()
	boardAddr, adminAddr := freeAddr(t), freeAddr(t)
	started := make(chan struct{})
	waiting := make(chan waitAnswers, 1)
	go func() { waiting <- probeWhileWaiting(boardAddr, adminAddr, started) }()
	t0 := time.Now()
	s := start(t, "-db", "postgres", "-dsn", u.String(), "-db-wait", "20s", "-seed-posts", "10", "-pool", "2", "-addr", boardAddr, "-admin-addr", adminAddr)
	if waited := time.Since(t0); waited < time.Second {
		t.Errorf("started after %v, before the database was reachable", waited)
	}
	close(started)
	if w := <-waiting; w.readyz == "" || w.healthz != 200 || w.board != 503 || !w.retryAfter {
		t.Errorf("while waiting for the database: healthz %d, board %d, Retry-After on both 503s %v, readyz reason %q; want 200, 503, true and a reason", w.healthz, w.board, w.retryAfter, w.readyz)
	} else {
		t.Logf("while waiting: readyz %q", w.readyz)
	}
	ready := func() int {
		resp, err := http.Get(s.admin + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := ready(); code != 200 {
		t.Fatalf("readyz after start: %d", code)
	}
	p.down()
	if code := ready(); code != 503 {
		t.Errorf("readyz with the database cut: %d; want 503", code)
	}
	code, body, _, err := postJSON(http.DefaultClient, s.board, "AllView", "cut")
	if err != nil || code != 503 {
		t.Errorf("post with the database cut: %d %q %v; want 503", code, body, err)
	}
	if err := p.up(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	if !eventually(5*time.Second, func() bool { return ready() == 200 }) {
		t.Fatalf("readyz still not ready 5 s after the database came back")
	}
	var ok time.Duration
	if !eventually(5*time.Second, func() bool {
		code, _, _, _ := postJSON(http.DefaultClient, s.board, "EachGetView", "back")
		ok = time.Since(back)
		return code == 200
	}) {
		t.Fatalf("the board did not recover within 5 s")
	}
	t.Logf("database cut and restored: board serving again %v later", ok.Round(time.Millisecond))
}

// waitAnswers is what the listeners answered while start-up waited for
// the database.
type waitAnswers struct {
	healthz, board int
	retryAfter     bool   // on the board's 503 and /readyz's
	readyz         string // its reason; empty if it never said it was waiting
}

// probeWhileWaiting asks the board, /healthz and then /readyz until
// /readyz says start-up is waiting for the database, or until started is
// closed. Since the handlers change only once, at the end of the wait, the
// two answers before such a /readyz came during the wait too.
func probeWhileWaiting(boardAddr, adminAddr string, started <-chan struct{}) waitAnswers {
	client := &http.Client{Timeout: 2 * time.Second}
	ask := func(u string) (int, http.Header, string) {
		resp, err := client.Get(u)
		if err != nil {
			return 0, nil, ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	for {
		select {
		case <-started:
			return waitAnswers{}
		case <-time.After(20 * time.Millisecond):
		}
		board, bh, _ := ask("http://" + boardAddr + "/bbs?cmd=AllView")
		health, _, _ := ask("http://" + adminAddr + "/healthz")
		code, rh, body := ask("http://" + adminAddr + "/readyz")
		var r struct {
			Reason string `json:"reason"`
		}
		if code == 503 && json.Unmarshal([]byte(body), &r) == nil && strings.Contains(r.Reason, "waiting for the database") {
			return waitAnswers{healthz: health, board: board, readyz: r.Reason,
				retryAfter: bh.Get("Retry-After") != "" && rh.Get("Retry-After") != ""}
		}
	}
}

// TestDBWaitGivesUp checks that an unreachable database fails start-up with
// exit code 1 and a clear message, at once without db_wait and after it
// with one, and prints how to start a PostgreSQL server.
func TestDBWaitGivesUp(t *testing.T) {
	dead := "postgres://nobody@" + freeAddr(t) + "/x?sslmode=disable&connect_timeout=2"
	for _, tt := range []struct {
		wait     string
		want     string
		min, max time.Duration
	}{
		{"0s", "set db_wait to wait", 0, 5 * time.Second},
		{"1500ms", "after waiting 1.5s (db_wait)", 1500 * time.Millisecond, 10 * time.Second},
	} {
		t0 := time.Now()
		var stderr strings.Builder
		err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-admin-addr", "", "-db", "postgres", "-dsn", dead, "-db-wait", tt.wait}, func(string) string { return "" }, io.Discard, &syncWriter{w: &stderr})
		took := time.Since(t0)
		if err == nil || cli.ExitCode(err) != 1 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("db_wait %s: %v (exit %d); want exit 1 and %q", tt.wait, err, cli.ExitCode(err), tt.want)
		}
		if took < tt.min || took > tt.max {
			t.Errorf("db_wait %s: gave up after %v; want %v..%v", tt.wait, took, tt.min, tt.max)
		}
		if !strings.Contains(stderr.String(), "docs/postgres.md") || !strings.Contains(stderr.String(), "pg_ctlcluster") {
			t.Errorf("db_wait %s: stderr %q; want the hint on how to start PostgreSQL", tt.wait, stderr.String())
		}
	}
}

// syncWriter serialises writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// percentile returns the p-th percentile of ds (0 < p <= 100).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// TestDatabaseConnectionsAreOwn checks that /admin/stats counts the
// board's own connections to PostgreSQL, not every connection to its port
// on the machine: this test holds one more.
func TestDatabaseConnectionsAreOwn(t *testing.T) {
	dsn, _, _ := pgDSN(t, "own")
	other, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	s := startChild(t, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-db", "postgres", "-dsn", dsn, "-pool", "3", "-seed-posts", "10")
	var est float64
	if !eventually(5*time.Second, func() bool {
		est = num(adminStats(t, s.admin), "connections.database.states.ESTABLISHED")
		return est == 3
	}) {
		t.Errorf("connections.database ESTABLISHED = %v; want 3, the pool (this test's own connection is not the board's)", est)
	}
}
