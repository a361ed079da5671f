package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/entity"
	"bbslab/entity/open"
	"bbslab/internal/cli"
)

// server is a running run() for a test.
type server struct {
	board, admin string // base URLs
	cancel       context.CancelFunc
	done         chan error
}

// start runs the real run() on 127.0.0.1:0 with extra args and waits for
// the URLs it prints.
func start(t *testing.T, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &server{cancel: cancel, done: make(chan error, 1)}
	args = append([]string{"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0"}, args...)
	go func() {
		err := run(ctx, args, func(string) string { return "" }, pw, io.Discard)
		pw.Close()
		s.done <- err
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		if u, ok := strings.CutPrefix(line, "board: "); ok {
			s.board = u
		}
		if u, ok := strings.CutPrefix(line, "admin: "); ok {
			s.admin = strings.TrimSuffix(u, "/")
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if s.admin == "" {
		cancel()
		t.Fatalf("run did not print its URLs: %v", <-s.done)
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

func (s *server) stop(t *testing.T) {
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	if err := <-s.done; err != nil {
		t.Errorf("run: %v", err)
	}
}

type answer struct {
	Command string        `json:"command"`
	Posted  *entity.Post  `json:"posted"`
	Posts   []entity.Post `json:"posts"`
}

func call(t *testing.T, board string, form url.Values) (int, answer) {
	t.Helper()
	form.Set("format", "json")
	resp, err := http.PostForm(board, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	json.NewDecoder(resp.Body).Decode(&a)
	return resp.StatusCode, a
}

func TestEndToEnd(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bbs.db")
	s := start(t, "-dsn", db, "-seed-posts", "50", "-pool", "4", "-workers", "4")

	// A database at rest: the three commands read the same posts.
	var first []entity.Post
	for _, cmd := range []string{"AllView", "OnceGetView", "EachGetView"} {
		code, a := call(t, s.board, url.Values{"cmd": {cmd}})
		if code != 200 || len(a.Posts) != 30 || a.Posts[0].No != 50 {
			t.Fatalf("%s at rest: %d, %d posts", cmd, code, len(a.Posts))
		}
		if first == nil {
			first = a.Posts
		} else if fmt.Sprint(a.Posts) != fmt.Sprint(first) {
			t.Errorf("%s read other posts than AllView", cmd)
		}
	}
	// Post through each command and read it back at the top.
	for i, cmd := range []string{"AllView", "OnceGetView", "EachGetView"} {
		msg := fmt.Sprintf("%s で投稿 <b>%d</b>", cmd, i)
		code, a := call(t, s.board, url.Values{"cmd": {cmd}, "name": {"テスト"}, "message": {msg}})
		if code != 200 || a.Posted == nil || a.Posts[0].Message != msg || a.Posts[0].Name != "テスト" || a.Posts[0].No != int64(51+i) {
			t.Fatalf("%s post: %d %+v", cmd, code, a.Posts[:1])
		}
	}
	// Reset restores the seed.
	resp, err := http.Post(s.admin+"/admin/reset?posts=20", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reset: %v %v", resp, err)
	}
	resp.Body.Close()
	if _, a := call(t, s.board, url.Values{"cmd": {"AllView"}}); a.Posts[0].No != 20 || a.Posts[0] != entity.SeedPost(20) {
		t.Errorf("after reset the newest post is %+v; want seed post 20", a.Posts[0])
	}
	resp, err = http.Get(s.admin + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("readyz: %v %v", resp, err)
	}
	resp.Body.Close()
	s.stop(t)

	// A restart keeps the data and does not seed again.
	s = start(t, "-dsn", db, "-seed-posts", "50")
	if _, a := call(t, s.board, url.Values{"cmd": {"AllView"}, "n": {"1"}}); len(a.Posts) != 1 || a.Posts[0].No != 20 {
		t.Errorf("after restart: %+v; want post 20 on top", a.Posts)
	}
}

// TestShutdownKeepsAcknowledgedPosts posts from several clients, stops the
// server while requests are in flight, and checks that every post answered
// with 200 is stored exactly once.
func TestShutdownKeepsAcknowledgedPosts(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bbs.db")
	s := start(t, "-dsn", db, "-seed-posts", "10", "-pool", "3", "-workers", "3")
	var (
		mu    sync.Mutex
		acked []string
		wg    sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second}
	stopAt := time.Now().Add(2 * time.Second)
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmds := []string{"AllView", "OnceGetView", "EachGetView"}
			for i := 0; time.Now().Before(stopAt); i++ {
				msg := fmt.Sprintf("client %d post %d", c, i)
				resp, err := client.PostForm(s.board, url.Values{"cmd": {cmds[i%3]}, "message": {msg}, "n": {"5"}})
				if err != nil {
					return // the server is gone
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					mu.Lock()
					acked = append(acked, msg)
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	s.stop(t) // requests are in flight now
	wg.Wait()
	if len(acked) == 0 {
		t.Fatal("no post was acknowledged before shutdown")
	}

	st, err := open.Store(context.Background(), entity.Options{Driver: "sqlite", DSN: db, Pool: 1, PoolMode: "fixed"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	all, err := c.Newest(context.Background(), 100000)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, p := range all {
		count[p.Message]++
	}
	for _, m := range acked {
		if count[m] != 1 {
			t.Errorf("acknowledged post %q stored %d times", m, count[m])
		}
	}
	t.Logf("%d posts acknowledged, %d stored in all", len(acked), len(all))
}

func TestBadConfigExitCode(t *testing.T) {
	for _, args := range [][]string{{"-workers", "-3"}, {"-pool-mode", "x"}, {"-nosuch"}} {
		err := run(context.Background(), args, func(string) string { return "" }, io.Discard, io.Discard)
		if err == nil || cli.ExitCode(err) != 2 {
			t.Errorf("run(%q) = %v, exit %d; want exit 2", args, err, cli.ExitCode(err))
		}
	}
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-admin-addr", "", "-db", "postgres", "-dsn", "postgres://nobody@127.0.0.1:1/x?connect_timeout=2"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || cli.ExitCode(err) != 1 {
		t.Errorf("unreachable database: %v, exit %d; want exit 1", err, cli.ExitCode(err))
	}
}
