package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/internal/testenv"

	"github.com/jackc/pgx/v5"
)

// pgDSN returns the PostgreSQL test server's URL with a fresh schema as the
// search_path and a unique application_name, so that a test can find (and
// terminate) exactly its own server's backends. It skips the test when
// BBS_TEST_POSTGRES_DSN is unset and drops the schema at cleanup.
func pgDSN(t *testing.T, name string) (dsn, schema, app string) {
	t.Helper()
	base := testenv.PostgresDSN(t)
	schema = fmt.Sprintf("bbs_%s_%d", name, time.Now().UnixNano()%1e12)
	app = schema
	ctx := context.Background()
	c, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", base, err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer c.Close(ctx)
		// Backends of a server that a failed test left running hold locks.
		c.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", app)
		if _, err := c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	return u.String(), schema, app
}

// terminateBackends ends every PostgreSQL backend whose application_name
// is app and returns how many it ended.
func terminateBackends(app string) (int, error) {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, os.Getenv("BBS_TEST_POSTGRES_DSN"))
	if err != nil {
		return 0, err
	}
	defer c.Close(ctx)
	var n int
	err = c.QueryRow(ctx, "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) t", app).Scan(&n)
	return n, err
}

// adminStats reads /admin/stats.
func adminStats(t *testing.T, admin string) map[string]any {
	t.Helper()
	resp, err := http.Get(admin + "/admin/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// num reads a number at a dotted path of a decoded JSON object.
func num(m map[string]any, path string) float64 {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	f, _ := v.(float64)
	return f
}

// eventually polls cond every 20 ms until it holds or d passes.
func eventually(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// proxy is a TCP forwarder that a test can cut, to make a database
// unreachable and bring it back.
type proxy struct {
	addr, to string
	mu       sync.Mutex
	l        net.Listener
	conns    []net.Conn
	wg       sync.WaitGroup
}

// up starts forwarding connections to addr on to p.to.
func (p *proxy) up() error {
	var l net.Listener
	var err error
	if !eventually(5*time.Second, func() bool { l, err = net.Listen("tcp", p.addr); return err == nil }) {
		return fmt.Errorf("proxy listen %s: %w", p.addr, err)
	}
	p.mu.Lock()
	p.l = l
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("tcp", p.to)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, d)
			p.mu.Unlock()
			p.wg.Add(2)
			go func() { defer p.wg.Done(); io.Copy(d, c); d.Close() }()
			go func() { defer p.wg.Done(); io.Copy(c, d); c.Close() }()
		}
	}()
	return nil
}

// down stops listening and cuts every forwarded connection.
func (p *proxy) down() {
	p.mu.Lock()
	if p.l != nil {
		p.l.Close()
		p.l = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}
