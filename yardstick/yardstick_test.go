package yardstick_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bbslab/bbs"
	"bbslab/entity"
	"bbslab/entity/open"
	"bbslab/internal/testenv"
	"bbslab/yardstick"
)

// seedPosts is how many posts each test database holds: more than a page.
const seedPosts = 100

// lockedBuffer is the board's SQL trace, read after the requests.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// pair is the real board and the yardstick over the same database.
type pair struct {
	db               string
	board, yardstick string // /bbs URLs
	trace            *lockedBuffer
}

// forEachDB runs f as a subtest on SQLite and on PostgreSQL (skipped, or
// failed under CI, when BBS_TEST_POSTGRES_DSN is unset), each time with the
// board (bbs.New over entity.Open, which seeds the database) and then the
// yardstick started on the same database.
func forEachDB(t *testing.T, f func(t *testing.T, p pair)) {
	t.Run("sqlite", func(t *testing.T) {
		f(t, start(t, "sqlite", filepath.Join(t.TempDir(), "bbs.db"), ""))
	})
	t.Run("postgres", func(t *testing.T) {
		base := testenv.PostgresDSN(t)
		schema := fmt.Sprintf("yardstick_%d", time.Now().UnixNano()%1e12)
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx := context.Background()
			c, err := pgx.Connect(ctx, base)
			if err != nil {
				t.Errorf("drop schema %s: %v", schema, err)
				return
			}
			defer c.Close(ctx)
			if _, err := c.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
				t.Errorf("drop schema %s: %v", schema, err)
			}
		})
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		f(t, start(t, "postgres", u.String(), schema))
	})
}

func start(t *testing.T, db, dsn, schema string) pair {
	t.Helper()
	ctx := context.Background()
	trace := &lockedBuffer{}
	storeDSN := dsn
	if schema != "" {
		// entity creates the schema and sets the search_path itself.
		u, _ := url.Parse(dsn)
		q := u.Query()
		q.Del("search_path")
		u.RawQuery = q.Encode()
		storeDSN = u.String()
	}
	st, err := open.Store(ctx, entity.Options{Driver: db, DSN: storeDSN, Pool: 10, SeedPosts: seedPosts, Schema: schema, Trace: trace})
	if err != nil {
		t.Fatalf("open board store %s: %v", db, err)
	}
	board := httptest.NewServer(bbs.New(bbs.Options{Store: st, Workers: 10, SeedPosts: seedPosts, DBName: db}).Handler())
	y, err := yardstick.Open(ctx, db, dsn, 10)
	if err != nil {
		board.Close()
		st.Close()
		t.Fatalf("open yardstick %s: %v", db, err)
	}
	ys := httptest.NewServer(y.Handler())
	t.Cleanup(func() {
		ys.Close()
		y.Close()
		board.Close()
		st.Close()
	})
	return pair{db: db, board: board.URL + "/bbs", yardstick: ys.URL + "/bbs", trace: trace}
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestHandlersReturnPosts checks every command in both formats returns the
// 30 newest posts, newest first.
func TestHandlersReturnPosts(t *testing.T) {
	forEachDB(t, func(t *testing.T, p pair) {
		for _, cmd := range yardstick.Commands {
			u := p.yardstick + "?cmd=" + cmd + "&format=json&n=30"
			code, body := get(t, u)
			if code != http.StatusOK {
				t.Fatalf("%s GET %s = %d %s", p.db, u, code, body)
			}
			var got struct {
				Command string
				Posts   []yardstick.Post
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("%s GET %s: %v", p.db, u, err)
			}
			if got.Command != cmd || len(got.Posts) != 30 {
				t.Fatalf("%s GET %s: command %q, %d posts; want %q, 30", p.db, u, got.Command, len(got.Posts), cmd)
			}
			for i, post := range got.Posts {
				if want := int64(seedPosts - i); post.No != want || post.Name == "" || post.CreatedAt.IsZero() {
					t.Fatalf("%s GET %s: post %d = %+v; want number %d with a name and a time", p.db, u, i, post, want)
				}
			}

			u = p.yardstick + "?cmd=" + cmd + "&format=html&n=5"
			code, body = get(t, u)
			if code != http.StatusOK {
				t.Fatalf("%s GET %s = %d", p.db, u, code)
			}
			ids := strings.Count(body, `<li id="post-`)
			if ids != 5 || !strings.Contains(body, `id="post-100"`) || !strings.Contains(body, `id="post-96"`) || !strings.Contains(body, "read by "+cmd) {
				t.Fatalf("%s GET %s: %d posts, want 5 (100..96) read by %s:\n%s", p.db, u, ids, cmd, body)
			}
		}
	})
}

// withoutCost drops the board's per-request cost line (<p class="cost">),
// which the yardstick, having no tally, does not write.
var costCount = regexp.MustCompile(`"queries":\d+,"acquires":\d+|This page cost \d+ quer[a-z]+ on \d+ connections?`)

// costCounts returns the counts of a body's cost line or object.
func costCounts(body string) string { return costCount.FindString(body) }

// TestBodiesMatchBoard checks the yardstick answers each command and format
// with the board's bytes.
func TestBodiesMatchBoard(t *testing.T) {
	forEachDB(t, func(t *testing.T, p pair) {
		for _, cmd := range yardstick.Commands {
			for _, format := range []string{"json", "html"} {
				q := "?cmd=" + cmd + "&format=" + format + "&n=30"
				bc, board := get(t, p.board+q)
				yc, ys := get(t, p.yardstick+q)
				if bc != 200 || yc != 200 {
					t.Fatalf("%s %s: board %d, yardstick %d; want 200 from both", p.db, q, bc, yc)
				}
				// The cost line (object) carries each server's own
				// timings: compared for its counts, then left out.
				if bq, yq := costCounts(board), costCounts(ys); bq != yq || bq == "" {
					t.Errorf("%s %s: cost counts: board %q, yardstick %q", p.db, q, bq, yq)
				}
				board, ys = yardstick.WithoutCost(board), yardstick.WithoutCost(ys)
				if board != ys {
					i := 0
					for i < min(len(board), len(ys)) && board[i] == ys[i] {
						i++
					}
					t.Errorf("%s %s: bodies differ at byte %d:\nboard:     %q\nyardstick: %q", p.db, q, i, board[max(0, i-40):min(len(board), i+80)], ys[max(0, i-40):min(len(ys), i+80)])
				}
			}
		}
	})
}

// TestSQLMatchesBoard checks the yardstick's statements are the board's,
// read from the board's SQL trace, and that each command sends as many.
func TestSQLMatchesBoard(t *testing.T) {
	forEachDB(t, func(t *testing.T, p pair) {
		want := map[string]int{"AllView": 1, "OnceGetView": 30, "EachGetView": 30}
		var seen []string
		for _, cmd := range yardstick.Commands {
			before := strings.Count(p.trace.String(), "\n")
			if code, _ := get(t, p.board+"?cmd="+cmd+"&format=json&n=30"); code != 200 {
				t.Fatalf("%s board %s = %d", p.db, cmd, code)
			}
			lines := strings.Split(strings.TrimSpace(p.trace.String()), "\n")[before:]
			if len(lines) != want[cmd] {
				t.Errorf("%s board %s: %d statements traced; want %d", p.db, cmd, len(lines), want[cmd])
			}
			for _, l := range lines {
				var tl struct{ Statement string }
				if err := json.Unmarshal([]byte(l), &tl); err != nil {
					t.Fatalf("%s trace line %q: %v", p.db, l, err)
				}
				if !slices.Contains(seen, tl.Statement) {
					seen = append(seen, tl.Statement)
				}
			}
		}
		slices.Sort(seen)
		got := yardstick.Statements(p.db)
		slices.Sort(got)
		if !slices.Equal(seen, got) {
			t.Errorf("%s: yardstick statements %q; board traced %q", p.db, got, seen)
		}
	})
}

// TestBadRequests checks the handler names what is wrong.
func TestBadRequests(t *testing.T) {
	p := start(t, "sqlite", filepath.Join(t.TempDir(), "bbs.db"), "")
	for _, tc := range []struct{ query, want string }{
		{"?cmd=Nope", `cmd "Nope"`},
		{"?n=0", `n "0"`},
		{"?n=501", `n "501"`},
		{"?format=xml", `format "xml"`},
	} {
		code, body := get(t, p.yardstick+tc.query)
		if code != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s = %d %q; want 400 naming %s", tc.query, code, body, tc.want)
		}
	}
}

// TestOpenErrors checks Open refuses what it cannot serve.
func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ db, dsn, want string }{
		{"mysql", "x", `database "mysql"`},
		{"sqlite", filepath.Join(t.TempDir(), "missing.db"), "start the board on it first"},
		{"sqlite", "", "empty DSN"},
		{"postgres", "::not a url", "cannot parse DSN"},
	} {
		y, err := yardstick.Open(ctx, tc.db, tc.dsn, 2)
		if err == nil {
			y.Close()
			t.Errorf("Open(%q, %q) succeeded; want an error naming %s", tc.db, tc.dsn, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q, %q) = %v; want it to name %s", tc.db, tc.dsn, err, tc.want)
		}
	}
}
