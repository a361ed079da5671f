//go:build cgo

package sqlite

import (
	"bbslab/entity"
	"context"
	"path/filepath"
	"testing"
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
