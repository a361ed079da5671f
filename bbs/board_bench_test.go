//go:build cgo && unix

// This benchmark serves the board on a real SQLite store (entity/open),
// which needs cgo.

package bbs

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"bbslab/entity"
	"bbslab/entity/open"
)

// processCPU returns the user and system CPU time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
