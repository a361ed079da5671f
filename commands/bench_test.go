//go:build cgo

// This benchmark opens a real SQLite store, which needs cgo.

package commands_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"bbslab/commands"
	"bbslab/entity"
	"bbslab/entity/open"
)

// BenchmarkViews runs each command (n = 30, no post) against a real
// store: SQLite always, PostgreSQL when BBS_TEST_POSTGRES_DSN is set.
//
//	go test -run '^$' -bench Views -benchmem ./commands
func BenchmarkViews(b *testing.B) {
	stores := map[string]entity.Options{
		"sqlite": {Driver: "sqlite", DSN: filepath.Join(b.TempDir(), "bench.db")},
	}
	if dsn := os.Getenv("BBS_TEST_POSTGRES_DSN"); dsn != "" {
		stores["postgres"] = entity.Options{Driver: "postgres", DSN: dsn, Schema: "bbs_bench_views"}
	}
	for _, db := range []string{"sqlite", "postgres"} {
		o, ok := stores[db]
		if !ok {
			continue
		}
		o.Pool, o.PoolMode, o.SeedPosts = 4, "fixed", 1000
		s, err := open.Store(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Reset(context.Background(), 1000); err != nil {
			b.Fatal(err)
		}
		for _, v := range commands.Views {
			b.Run(db+"/"+v.Name(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					res, err := v.Run(context.Background(), s, commands.Request{N: 30})
					if err != nil || len(res.Posts) != 30 {
						b.Fatalf("%v, %d posts", err, len(res.Posts))
					}
				}
			})
		}
		s.Close()
	}
}
