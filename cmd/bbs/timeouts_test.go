package main

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSilentConnections opens 1,000 connections that send nothing and
// checks that other clients are still served and that the server closes
// the silent ones after read_header_timeout.
func TestSilentConnections(t *testing.T) {
	s := start(t, "-dsn", filepath.Join(t.TempDir(), "bbs.db"), "-seed-posts", "40", "-read-header-timeout", "1s")
	host := strings.TrimPrefix(strings.TrimSuffix(s.board, "/bbs"), "http://")
	silent := make([]net.Conn, 0, 1000)
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	for range 1000 {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatalf("silent connection %d: %v", len(silent)+1, err)
		}
		silent = append(silent, c)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for i := range 20 {
		resp, err := client.Get(s.board + "?cmd=AllView&n=5")
		if err != nil {
			t.Fatalf("request %d beside 1,000 silent connections: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d beside 1,000 silent connections: %d", i, resp.StatusCode)
		}
	}
	// The server hangs up on every silent connection: the read ends with
	// EOF (or a reset), not with our own 10 s deadline.
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := 0
	for _, c := range silent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, err := io.Copy(io.Discard, c)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				mu.Lock()
				open++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if open > 0 {
		t.Errorf("%d of 1,000 silent connections still open 10 s after a 1 s read_header_timeout", open)
	}
}

// lockSQLite opens the SQLite file and holds its write lock until the
// returned function is called.
func lockSQLite(t *testing.T, path string) (unlock func()) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	unlock = func() {
		once.Do(func() {
			c.ExecContext(context.Background(), "ROLLBACK")
			c.Close()
			db.Close()
		})
	}
	t.Cleanup(unlock)
	return unlock
}

// postJSON posts a message and returns the status, the body and the time
// the answer took.
func postJSON(client *http.Client, board, cmd, msg string) (int, string, time.Duration, error) {
	t0 := time.Now()
	resp, err := client.PostForm(board, url.Values{"cmd": {cmd}, "message": {msg}, "format": {"json"}, "n": {"5"}})
	if err != nil {
		return 0, "", time.Since(t0), err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), time.Since(t0), nil
}

// TestSQLiteLockedGives503 holds SQLite's write lock from outside for longer
// than busy_timeout and checks that a post gets a short 503 instead of
// hanging, that reads still work, and that posting works once the lock is
// gone.
func TestSQLiteLockedGives503(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bbs.db")
	dsn := "file:" + db + "?_journal_mode=WAL&_busy_timeout=300&_synchronous=NORMAL&_txlock=immediate"
	s := start(t, "-dsn", dsn, "-seed-posts", "40")
	unlock := lockSQLite(t, db)

	code, body, took, err := postJSON(http.DefaultClient, s.board, "AllView", "while locked")
	if err != nil || code != 503 || !strings.Contains(body, "database is unavailable") {
		t.Errorf("post while locked: %d %s %v; want 503 saying the database is unavailable", code, body, err)
	}
	for _, leak := range []string{"sqlite", "locked", "SQLITE", "busy"} {
		if strings.Contains(body, leak) {
			t.Errorf("503 body leaks the driver message (%q): %s", leak, body)
		}
	}
	if took > 3*time.Second {
		t.Errorf("post while locked took %v; want about busy_timeout (300ms)", took)
	}
	if _, a := call(t, s.board, url.Values{"cmd": {"EachGetView"}, "n": {"3"}}); len(a.Posts) != 3 {
		t.Errorf("read while locked: %d posts; want 3", len(a.Posts))
	}
	unlock()
	if code, a := call(t, s.board, url.Values{"cmd": {"AllView"}, "message": {"after the lock"}, "n": {"2"}}); code != 200 || a.Posts[0].Message != "after the lock" || a.Posts[1].No != 40 {
		t.Errorf("post after the lock: %d %+v; want it on top of seed post 40 (the 503 stored nothing)", code, a.Posts)
	}
}

// TestDeadlineStopsQueries runs a post into a held write lock with a
// request_timeout far below busy_timeout: the answer is a 503 at the
// deadline, not after busy_timeout, because the deadline interrupts SQLite.
func TestDeadlineStopsQueries(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bbs.db")
	s := start(t, "-dsn", db, "-seed-posts", "40", "-request-timeout", "300ms") // busy_timeout is 5 s
	lockSQLite(t, db)
	code, body, took, err := postJSON(http.DefaultClient, s.board, "OnceGetView", "past the deadline")
	if err != nil || code != 503 || !strings.Contains(body, "took too long") {
		t.Errorf("post past its deadline: %d %s %v; want 503 saying it took too long", code, body, err)
	}
	if took > 3*time.Second {
		t.Errorf("post past a 300ms deadline took %v; the query was not stopped (busy_timeout is 5s)", took)
	}
	if !eventually(2*time.Second, func() bool { return num(adminStats(t, s.admin), "db_pool.in_use") == 0 }) {
		t.Errorf("a connection is still in use after the deadline")
	}
}

// TestDisconnectCancelsSQL posts into a held write lock from a client that
// gives up after 200 ms: the server's SQL stops then (the connection is
// back in the pool long before busy_timeout), and the request is counted
// as a client that left.
func TestDisconnectCancelsSQL(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bbs.db")
	s := start(t, "-dsn", db, "-seed-posts", "40") // busy_timeout 5 s, request_timeout 20 s
	lockSQLite(t, db)
	client := &http.Client{Timeout: 200 * time.Millisecond}
	t0 := time.Now()
	if _, _, _, err := postJSON(client, s.board, "EachGetView", "client leaves"); err == nil {
		t.Fatal("the post answered while the database was locked")
	}
	var freed time.Duration
	if !eventually(4*time.Second, func() bool {
		st := adminStats(t, s.admin)
		freed = time.Since(t0)
		return num(st, "responses.client_gone") == 1 && num(st, "db_pool.in_use") == 0
	}) {
		t.Fatalf("the request's SQL still runs %v after its client left", time.Since(t0))
	}
	t.Logf("client left at 200ms; connection back in the pool after %v", freed)
}
