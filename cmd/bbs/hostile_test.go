package main

import (
	"bbslab/internal/cli"
	"context"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeadersTooLarge checks that a header block over the public
// listener's 16 KB limit gets 431, and one under it is served.
func TestHeadersTooLarge(t *testing.T) {
	s := start(t, "-dsn", filepath.Join(t.TempDir(), "bbs.db"), "-seed-posts", "5")
	for _, tt := range []struct {
		size int
		want int
	}{{8 << 10, 200}, {64 << 10, 431}, {1 << 20, 431}} {
		req, _ := http.NewRequest("GET", s.board+"?cmd=AllView", nil)
		req.Header.Set("X-Padding", strings.Repeat("a", tt.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("%d-byte header: %v", tt.size, err)
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%d-byte header: %d; want %d", tt.size, resp.StatusCode, tt.want)
		}
	}
	resp, err := http.Post(s.board, "application/x-www-form-urlencoded", strings.NewReader("cmd=AllView&message="+strings.Repeat("x", 100<<10)))
	if err != nil || resp.StatusCode != 413 {
		t.Errorf("100 KB body: %v %v; want 413", resp, err)
	} else {
		resp.Body.Close()
	}
}

// injections are strings that would change SQL built by concatenation.
var injections = []string{
	`'); DROP TABLE posts; --`,
	`x' OR '1'='1`,
	`1; DELETE FROM posts WHERE 1=1`,
	`" OR ""="`,
	`\'; SELECT pg_sleep(10); --`,
	`$1 $$ $body$ ?`,
	`%' UNION SELECT 1, name, message, created_at FROM posts --`,
}

// TestSQLInjectionStoredLiterally posts SQL-injection strings as name and
// message on the real databases and reads them back unchanged, with the
// table intact.
func TestSQLInjectionStoredLiterally(t *testing.T) {
	dbs := map[string][]string{"sqlite": {"-dsn", filepath.Join(t.TempDir(), "bbs.db")}}
	t.Run("sqlite", func(t *testing.T) { checkInjections(t, dbs["sqlite"]) })
	t.Run("postgres", func(t *testing.T) {
		dsn, _, _ := pgDSN(t, "inject")
		checkInjections(t, []string{"-db", "postgres", "-dsn", dsn})
	})
}

func checkInjections(t *testing.T, dbArgs []string) {
	s := start(t, append([]string{"-seed-posts", "10"}, dbArgs...)...)
	for i, inj := range injections {
		cmd := []string{"AllView", "OnceGetView", "EachGetView"}[i%3]
		code, a := call(t, s.board, url.Values{"cmd": {cmd}, "name": {inj[:min(len(inj), 64)]}, "message": {inj}, "n": {"2"}})
		if code != 200 || len(a.Posts) != 2 || a.Posts[0].Message != inj || a.Posts[0].Name != inj[:min(len(inj), 64)] || a.Posts[0].No != int64(11+i) {
			t.Errorf("%s %q: %d %+v; want it stored literally as post %d", cmd, inj, code, a.Posts, 11+i)
		}
	}
	code, a := call(t, s.board, url.Values{"cmd": {"AllView"}, "n": {"500"}})
	if code != 200 || len(a.Posts) != 10+len(injections) {
		t.Errorf("after the injections: %d, %d posts; want all %d", code, len(a.Posts), 10+len(injections))
	}
	resp, err := http.Get(s.board + "?cmd=EachGetView&n=3")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "%&#39; UNION SELECT 1, name, message, created_at FROM posts --") {
		t.Errorf("HTML page lacks the last injection shown as text")
	}
}

// TestAdminListenerGuarded checks the admin listener end to end: a
// non-loopback admin address without a token refuses to start; with a
// token every admin path needs it; reset only by POST; and nothing under
// /admin, /debug or /metrics answers on the public listener.
func TestAdminListenerGuarded(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bbs.db")
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "192.0.2.1:6060", ":6060"} {
		var stderr strings.Builder
		err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-admin-addr", addr, "-dsn", db}, func(string) string { return "" }, io.Discard, &syncWriter{w: &stderr})
		if err == nil || cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), "loopback address unless admin_token") {
			t.Errorf("admin_addr %s without a token: %v (exit %d); want exit 2 naming admin_token", addr, err, cli.ExitCode(err))
		}
	}

	s := start(t, "-dsn", db, "-seed-posts", "5", "-admin-token", "s3cret")
	paths := []string{"/", "/healthz", "/readyz", "/admin/stats", "/admin/reset", "/admin/", "/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/debug/fgprof", "/metrics", "/nosuch"}
	for _, p := range paths {
		for _, m := range []string{"GET", "POST"} {
			req, _ := http.NewRequest(m, s.admin+p, nil)
			req.Header.Set("Authorization", "Bearer wrong")
			if code := status(t, req); code != 401 {
				t.Errorf("admin %s %s with a wrong token: %d; want 401", m, p, code)
			}
			req, _ = http.NewRequest(m, s.admin+p, nil)
			if code := status(t, req); code != 401 {
				t.Errorf("admin %s %s without a token: %d; want 401", m, p, code)
			}
		}
	}
	for _, m := range []string{"GET", "PUT", "DELETE", "PATCH"} {
		req, _ := http.NewRequest(m, s.admin+"/admin/reset?posts=1", nil)
		req.Header.Set("Authorization", "Bearer s3cret")
		if code := status(t, req); code != 405 {
			t.Errorf("admin %s /admin/reset: %d; want 405 (reset only by POST)", m, code)
		}
	}
	req, _ := http.NewRequest("POST", s.admin+"/admin/reset?posts=1&token=s3cret", nil)
	if code := status(t, req); code != 401 {
		t.Errorf("POST /admin/reset?token=: %d; want 401 (the token is taken from the Authorization header only)", code)
	}
	req, _ = http.NewRequest("POST", s.admin+"/admin/reset?posts=3", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	if code := status(t, req); code != 200 {
		t.Errorf("POST /admin/reset with the token: %d; want 200", code)
	}

	public := strings.TrimSuffix(s.board, "/bbs")
	for _, p := range append(paths[1:10], "/admin/reset?posts=1", "/debug/vars", "/debug/", "/metrics/", "/admin/stats?token=s3cret", "/debug/pprof/profile?seconds=1") {
		for _, m := range []string{"GET", "POST", "HEAD"} {
			req, _ := http.NewRequest(m, public+p, nil)
			req.Header.Set("Authorization", "Bearer s3cret")
			if code := status(t, req); code != 404 {
				t.Errorf("public %s %s: %d; want 404", m, p, code)
			}
		}
	}
	if _, a := call(t, s.board, url.Values{"cmd": {"AllView"}}); len(a.Posts) != 3 {
		t.Errorf("board has %d posts; want the 3 of the one admin reset", len(a.Posts))
	}
}

// status does req and returns the status code.
func status(t *testing.T, req *http.Request) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
