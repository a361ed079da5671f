//go:build cgo && unix

// This benchmark serves the board on a real SQLite store (entity/open),
// which needs cgo.

package bbs

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/mattn/go-sqlite3"

	"bbslab/entity"
	"bbslab/entity/open"
	"bbslab/machine"
)

// processCPU returns the user and system CPU time this process has used.
func processCPU(b *testing.B) time.Duration {
	u, err := machine.ReadProcessUsage()
	if err != nil {
		b.Fatalf("process CPU: %v", err)
	}
	return u.User + u.System
}

// BenchmarkBoard runs whole board requests (the public handler with its
// metrics, headers and worker limit) for AllView and EachGetView, as HTML
// and JSON, on SQLite and, when BBS_TEST_POSTGRES_DSN is set, PostgreSQL:
// the CPU and allocations the board adds to the SQL it runs.
//
//	go test -run '^$' -bench Board -benchmem -count 5 ./bbs
func BenchmarkBoard(b *testing.B) {
	stores := []struct {
		name string
		o    entity.Options
	}{{"sqlite", entity.Options{Driver: "sqlite", DSN: filepath.Join(b.TempDir(), "bench.db")}}}
	if dsn := os.Getenv("BBS_TEST_POSTGRES_DSN"); dsn != "" {
		stores = append(stores, struct {
			name string
			o    entity.Options
		}{"postgres", entity.Options{Driver: "postgres", DSN: dsn, Schema: "bbs_bench_board"}})
	}
	for _, db := range stores {
		o := db.o
		o.Pool, o.PoolMode, o.SeedPosts = 10, "fixed", 1000
		st, err := open.Store(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Reset(context.Background(), 1000); err != nil {
			b.Fatal(err)
		}
		s := New(Options{Store: st, Workers: 10, Queue: 100, DBName: db.name})
		h := s.Handler()
		for _, cmd := range []string{"AllView", "EachGetView"} {
			for _, format := range []string{"html", "json"} {
				b.Run(db.name+"/"+cmd+"/"+format, func(b *testing.B) {
					b.ReportAllocs()
					cpu0 := processCPU(b)
					target := "/bbs?cmd=" + cmd + "&format=" + format
					for b.Loop() {
						// A served request's context is cancellable
						// (net/http cancels it when the client leaves).
						ctx, cancel := context.WithCancel(context.Background())
						req := httptest.NewRequestWithContext(ctx, http.MethodGet, target, nil)
						w := httptest.NewRecorder()
						h.ServeHTTP(w, req)
						cancel()
						if w.Code != http.StatusOK || w.Header().Get("X-BBS-Acquires") == "0" {
							b.Fatalf("GET %s: %d, X-BBS-Acquires %q", target, w.Code, w.Header().Get("X-BBS-Acquires"))
						}
					}
					// Wall time per request is at the mercy of whatever
					// else the machine runs; the process's CPU time per
					// request is not.
					b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
				})
			}
		}
		st.Close()
	}
}

// BenchmarkBareSQLite is the yardstick for BenchmarkBoard/sqlite/.../json:
// a bare net/http handler on database/sql and go-sqlite3 that runs the
// same statements on a seeded file of the same shape under the request's
// context and encodes the same JSON with encoding/json, with no worker
// limit, tally, metrics or headers, and without pinning a connection per
// query. Its cpu-ns/op over the board's is the board's overhead.
//
//	go test -run '^$' -bench 'Board/sqlite/.*/json|BareSQLite' -count 5 ./bbs
func BenchmarkBareSQLite(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bare.db")
	st, err := open.Store(context.Background(), entity.Options{Driver: "sqlite", DSN: path, Pool: 1, SeedPosts: 1000})
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_busy_timeout=5000&_synchronous=NORMAL&_txlock=immediate&_foreign_keys=on&_stmt_cache_size=16")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(10)
	db.SetMaxIdleConns(10)
	type answer struct {
		Command string        `json:"command"`
		Posts   []entity.Post `json:"posts"`
	}
	scan := func(sc interface{ Scan(...any) error }, p *entity.Post) error {
		err := sc.Scan(&p.No, &p.Name, &p.Message, &p.CreatedAt)
		p.CreatedAt = p.CreatedAt.UTC()
		return err
	}
	handlers := map[string]http.HandlerFunc{
		"AllView": func(w http.ResponseWriter, r *http.Request) {
			rows, err := db.QueryContext(r.Context(), `SELECT no, name, message, created_at FROM posts ORDER BY no DESC LIMIT ?`, 30)
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			defer rows.Close()
			a := answer{Command: "AllView", Posts: make([]entity.Post, 0, 30)}
			for rows.Next() {
				var p entity.Post
				if err := scan(rows, &p); err != nil {
					http.Error(w, err.Error(), 500)
					return
				}
				a.Posts = append(a.Posts, p)
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			json.NewEncoder(w).Encode(a)
		},
		"EachGetView": func(w http.ResponseWriter, r *http.Request) {
			a := answer{Command: "EachGetView", Posts: make([]entity.Post, 0, 30)}
			next := entity.MaxNo
			for len(a.Posts) < 30 {
				var p entity.Post
				err := scan(db.QueryRowContext(r.Context(), `SELECT no, name, message, created_at FROM posts WHERE no < ? ORDER BY no DESC LIMIT 1`, next), &p)
				if err != nil {
					http.Error(w, err.Error(), 500)
					return
				}
				a.Posts = append(a.Posts, p)
				next = p.No
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			json.NewEncoder(w).Encode(a)
		},
	}
	runBare(b, handlers)
}

// BenchmarkBarePostgres is BenchmarkBareSQLite's counterpart on
// PostgreSQL (BBS_TEST_POSTGRES_DSN): a bare handler on a pgxpool.Pool of
// 10 that runs the same statements under the request's context and encodes
// the same JSON with encoding/json.
//
//	go test -run '^$' -bench 'Board/postgres/.*/json|BarePostgres' -count 5 ./bbs
func BenchmarkBarePostgres(b *testing.B) {
	dsn := os.Getenv("BBS_TEST_POSTGRES_DSN")
	if dsn == "" {
		b.Skip("BBS_TEST_POSTGRES_DSN is not set")
	}
	const schema = "bbs_bench_bare"
	st, err := open.Store(context.Background(), entity.Options{Driver: "postgres", DSN: dsn, Schema: schema, Pool: 1, SeedPosts: 1000})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.Reset(context.Background(), 1000); err != nil {
		b.Fatal(err)
	}
	st.Close()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns, cfg.MinConns = 10, 10
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	type answer struct {
		Command string        `json:"command"`
		Posts   []entity.Post `json:"posts"`
	}
	handlers := map[string]http.HandlerFunc{
		"AllView": func(w http.ResponseWriter, r *http.Request) {
			rows, err := pool.Query(r.Context(), `SELECT no, name, message, created_at FROM posts ORDER BY no DESC LIMIT $1`, 30)
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			defer rows.Close()
			a := answer{Command: "AllView", Posts: make([]entity.Post, 0, 30)}
			for rows.Next() {
				var p entity.Post
				if err := rows.Scan(&p.No, &p.Name, &p.Message, &p.CreatedAt); err != nil {
					http.Error(w, err.Error(), 500)
					return
				}
				p.CreatedAt = p.CreatedAt.UTC()
				a.Posts = append(a.Posts, p)
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			json.NewEncoder(w).Encode(a)
		},
		"EachGetView": func(w http.ResponseWriter, r *http.Request) {
			a := answer{Command: "EachGetView", Posts: make([]entity.Post, 0, 30)}
			next := entity.MaxNo
			for len(a.Posts) < 30 {
				var p entity.Post
				err := pool.QueryRow(r.Context(), `SELECT no, name, message, created_at FROM posts WHERE no < $1 ORDER BY no DESC LIMIT 1`, next).Scan(&p.No, &p.Name, &p.Message, &p.CreatedAt)
				if err != nil {
					http.Error(w, err.Error(), 500)
					return
				}
				p.CreatedAt = p.CreatedAt.UTC()
				a.Posts = append(a.Posts, p)
				next = p.No
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			json.NewEncoder(w).Encode(a)
		},
	}
	runBare(b, handlers)
}

// runBare runs a bare handler per command as BenchmarkBoard runs the
// board's, reporting cpu-ns/op the same way.
func runBare(b *testing.B, handlers map[string]http.HandlerFunc) {
	for _, cmd := range []string{"AllView", "EachGetView"} {
		h := handlers[cmd]
		b.Run(cmd+"/json", func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU(b)
			target := "/bbs?cmd=" + cmd + "&format=json"
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				req := httptest.NewRequestWithContext(ctx, http.MethodGet, target, nil)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				cancel()
				if w.Code != http.StatusOK {
					b.Fatalf("GET %s: %d %s", target, w.Code, w.Body)
				}
			}
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkTruth runs AllView as HTML on SQLite through the public handler
// with the truth recorder off, on, and on with its per-request log: what
// recording costs a request (docs/truth.md). The request is served
// without a connection, so the arrival's read stamp (one atomic load and a
// clock read per request, truth's BenchmarkConnRead) is not in it.
//
//	go test -run '^$' -bench Truth -benchmem -count 5 ./bbs
func BenchmarkTruth(b *testing.B) {
	st, err := open.Store(context.Background(), entity.Options{Driver: "sqlite", DSN: filepath.Join(b.TempDir(), "bench.db"), Pool: 10, PoolMode: "fixed", SeedPosts: 1000})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for _, mode := range []string{"off", "on", "on+log"} {
		s := New(Options{Store: st, Workers: 10, Queue: 100, DBName: "sqlite"})
		if mode != "off" {
			if err := s.truth.Start(time.Time{}, time.Time{}, mode == "on+log"); err != nil {
				b.Fatal(err)
			}
		}
		h := s.Handler()
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU(b)
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/bbs?cmd=AllView", nil)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				cancel()
				if w.Code != http.StatusOK {
					b.Fatalf("GET: %d", w.Code)
				}
			}
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
			if rep, _ := s.truth.Report(nil); (mode != "off") != (rep.Requests > 0) {
				b.Fatalf("recording %s counted %d requests", mode, rep.Requests)
			}
		})
	}
}
