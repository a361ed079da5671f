package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"bbslab/entity"
	"bbslab/entity/open"
)

var soakFlag = flag.Duration("soak", 0, "duration of each soak test (default $BBS_SOAK_DURATION, else 12s; skipped under -short unless one of them is set)")

// soakDuration is how long each soak test sends load. Under -short the soak
// tests skip unless -soak or BBS_SOAK_DURATION asks for them: a SIGTERM and
// a SIGKILL under posting are TestShutdownKeepsAcknowledgedPosts's too, in
// a fraction of a second. 12 s at 50 posts/s gives 600 posts with a
// restart at each third (4 s of load between restarts); longer soaks
// (BBS_SOAK_DURATION=60s, the length until 2026-12) repeat the same
// steady state.
func soakDuration(t *testing.T) time.Duration {
	if *soakFlag > 0 {
		return *soakFlag
	}
	if v := os.Getenv("BBS_SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("BBS_SOAK_DURATION=%q: want a duration such as 60s", v)
		}
		return d
	}
	if testing.Short() {
		t.Skip("soak: long; runs without -short (or with -soak 10s)")
	}
	return 12 * time.Second
}

// soakRate is the fixed request rate of the soak load, per second.
const soakRate = 50

// TestSoakSQLite posts unique messages at a fixed rate through all three
// commands for the soak duration against the bbs binary on SQLite, with a
// SIGTERM-and-restart at one third and a SIGKILL-and-restart at two thirds,
// then checks the database: see checkSoak.
func TestSoakSQLite(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "bbs.db")
	runSoak(t, "sqlite", []string{"-dsn", db}, "SIGKILL and restart",
		func(c *child, restart func() (*child, error)) (*child, error) {
			if err := c.signal(syscall.SIGKILL); err == nil {
				return c, errors.New("SIGKILL: the server exited cleanly")
			}
			return restart()
		},
		func() (entity.Store, error) {
			return open.Store(context.Background(), entity.Options{Driver: "sqlite", DSN: db, Pool: 1})
		})
}

// TestSoakPostgres is TestSoakSQLite on PostgreSQL, with every backend of
// the pool terminated at two thirds instead of the SIGKILL.
func TestSoakPostgres(t *testing.T) {
	t.Parallel()
	dsn, schema, app := pgDSN(t, "soak")
	runSoak(t, "postgres", []string{"-db", "postgres", "-dsn", dsn}, "backend termination",
		func(c *child, _ func() (*child, error)) (*child, error) {
			n, err := terminateBackends(app)
			if err == nil && n == 0 {
				err = errors.New("no backend to terminate")
			}
			return c, err
		},
		func() (entity.Store, error) {
			return open.Store(context.Background(), entity.Options{Driver: "postgres", DSN: os.Getenv("BBS_TEST_POSTGRES_DSN"), Pool: 1, Schema: schema})
		})
}

// soakResult is the fate of one soak request.
type soakResult struct {
	sent  bool
	code  int   // 0: transport error
	no    int64 // the number the server acknowledged
	acked bool
}

// soakMessage is the i-th soak message: long enough, with an end marker,
// that a half-written row would show.
func soakMessage(db string, i int) string {
	return fmt.Sprintf("soak-%s-%06d|%s|end", db, i, strings.Repeat("x", i%300))
}

func runSoak(t *testing.T, db string, dbArgs []string, faultName string, fault func(*child, func() (*child, error)) (*child, error), open func() (entity.Store, error)) {
	d := soakDuration(t)
	addr := freeAddr(t)
	args := append([]string{"-addr", addr, "-admin-addr", "", "-seed-posts", "20", "-pool", "4", "-workers", "4", "-queue", "200", "-shutdown-timeout", "10s"}, dbArgs...)
	bin := bbsBinary(t)
	restart := func() (*child, error) { return startChildErr(t, bin, args...) }
	srv, err := restart()
	if err != nil {
		t.Fatal(err)
	}
	board := "http://" + addr + "/bbs"

	total := int(d.Seconds()*soakRate) + 1
	results := make([]soakResult, total)
	client := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var wg sync.WaitGroup
	inflight := make(chan struct{}, 200)
	skipped := 0
	cmds := []string{"AllView", "OnceGetView", "EachGetView"}
	send := func(i int) {
		defer wg.Done()
		defer func() { <-inflight }()
		msg := soakMessage(db, i)
		r := &results[i]
		r.sent = true
		resp, err := client.PostForm(board, url.Values{"cmd": {cmds[i%3]}, "name": {"soak"}, "message": {msg}, "n": {"5"}, "format": {"json"}})
		if err != nil {
			return
		}
		defer resp.Body.Close()
		r.code = resp.StatusCode
		var a answer
		if err := json.NewDecoder(resp.Body).Decode(&a); err == nil && resp.StatusCode == 200 && a.Posted != nil && a.Posted.Message == msg && a.Posted.No > 0 {
			r.acked, r.no = true, a.Posted.No
		}
		io.Copy(io.Discard, resp.Body)
	}

	// The faults run in order on a goroutine of their own, so that the
	// load keeps its rate while the server restarts.
	events := []struct {
		at   time.Duration
		name string
		do   func() error
	}{
		{d / 3, "SIGTERM and restart", func() error {
			if err := srv.signal(syscall.SIGTERM); err != nil {
				return fmt.Errorf("SIGTERM: %v\n%s", err, srv.stderr)
			}
			var err error
			srv, err = restart()
			return err
		}},
		{2 * d / 3, faultName, func() error {
			var err error
			srv, err = fault(srv, restart)
			return err
		}},
	}
	begin := time.Now()
	faultsDone := make(chan struct{})
	go func() {
		defer close(faultsDone)
		for _, ev := range events {
			time.Sleep(time.Until(begin.Add(ev.at)))
			t.Logf("%v: %s", time.Since(begin).Round(time.Millisecond), ev.name)
			if err := ev.do(); err != nil {
				t.Errorf("%s: %v", ev.name, err)
				return
			}
		}
	}()
	tick := time.NewTicker(time.Second / soakRate)
	for i := 0; i < total; i++ {
		if i > 0 {
			<-tick.C
		}
		select {
		case inflight <- struct{}{}:
			wg.Add(1)
			go send(i)
		default:
			skipped++ // fixed rate: no catching up
		}
	}
	tick.Stop()
	<-faultsDone
	wg.Wait()
	if err := srv.signal(syscall.SIGTERM); err != nil {
		t.Errorf("final SIGTERM: %v\n%s", err, srv.stderr)
	}
	checkSoak(t, db, results, skipped, open)
}

// checkSoak reads every post back and checks that each post answered with
// 200 is stored exactly once under the number it was acknowledged with,
// that every stored soak post is whole (name and message exactly as sent),
// and that no message is stored twice. Posts stored without an answer (the
// answer was lost to a restart or a cut connection) are counted, not
// errors.
func checkSoak(t *testing.T, db string, results []soakResult, skipped int, open func() (entity.Store, error)) {
	t.Helper()
	st, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	c, err := st.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	all, err := c.Newest(ctx, 10_000_000)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "soak-" + db + "-"
	stored := map[int][]entity.Post{}
	halfWritten := 0
	for _, p := range all {
		if !strings.HasPrefix(p.Message, prefix) && p.Name != "soak" {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(p.Message, prefix+"%06d|", &i); err != nil || i < 0 || i >= len(results) || p.Message != soakMessage(db, i) || p.Name != "soak" {
			t.Errorf("half-written or unknown post #%d: name %q message %.60q", p.No, p.Name, p.Message)
			halfWritten++
			continue
		}
		stored[i] = append(stored[i], p)
	}
	var sent, acked, unavailable, transport, otherCode, storedUnacked int
	var ackedOnce, storedTwice int // acknowledged and stored once under their number; any message stored more than once
	for i, r := range results {
		if !r.sent {
			continue
		}
		sent++
		switch {
		case r.acked:
			acked++
		case r.code == 503:
			unavailable++
		case r.code == 0:
			transport++
		default:
			otherCode++
			t.Errorf("request %d answered %d", i, r.code)
		}
		ps := stored[i]
		if len(ps) > 1 {
			storedTwice++
			t.Errorf("message %d stored %d times", i, len(ps))
		}
		switch {
		case r.acked && len(ps) == 1 && ps[0].No == r.no:
			ackedOnce++
		case r.acked:
			t.Errorf("acknowledged post %d (#%d) stored %d times: %+v", i, r.no, len(ps), ps)
		}
		if !r.acked && len(ps) > 0 {
			storedUnacked++
		}
	}
	t.Logf("soak on %s: %d sent at %d/s (%d skipped), %d acknowledged, %d of them stored exactly once under their number, %d answered 503, %d transport errors, %d other; %d stored without an answer, %d stored more than once, %d half-written or unknown",
		db, sent, soakRate, skipped, acked, ackedOnce, unavailable, transport, otherCode, storedUnacked, storedTwice, halfWritten)
	if ackedOnce != acked || storedTwice != 0 || halfWritten != 0 {
		t.Errorf("of %d acknowledged posts %d are stored exactly once; %d messages stored more than once, %d posts half-written or unknown; want all, 0 and 0", acked, ackedOnce, storedTwice, halfWritten)
	}
	if acked < sent*8/10 {
		t.Errorf("only %d of %d posts acknowledged", acked, sent)
	}
}
