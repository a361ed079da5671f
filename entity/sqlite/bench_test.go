//go:build cgo

package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"bbslab/entity"
	"bbslab/entity/storetest"
)

// BenchmarkReset100k measures Reset(100000) on SQLite (the lab resets before
// every run; the target is well under 10 s).
func BenchmarkReset100k(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, entity.Options{DSN: filepath.Join(b.TempDir(), "bbs.db"), Pool: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		if _, err := s.Reset(ctx, 100_000); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStore measures one pooled acquire and release on SQLite
// (database/sql), with each validation on borrow, and one single-row
// query for scale (storetest.Bench).
func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B, o entity.Options) entity.Store {
		o.DSN = filepath.Join(b.TempDir(), "bbs.db")
		s, err := Open(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
