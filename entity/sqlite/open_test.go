//go:build cgo

package sqlite

import (
	"context"
	"strings"
	"testing"

	"bbslab/entity"
)

func TestOpenSQLiteBadPath(t *testing.T) {
	t.Parallel()
	o := entity.Options{Driver: "sqlite", DSN: "/nonexistent-dir/sub/bbs.db", Pool: 1}
	s, err := Open(context.Background(), o)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%q) succeeded; want an error", o.DSN)
	}
	if !strings.Contains(err.Error(), "sqlite") || !strings.Contains(err.Error(), o.DSN) {
		t.Errorf("Open(%q) = %v; want an error naming sqlite and the path", o.DSN, err)
	}
}
