//go:build !cgo

package sqlite

import (
	"context"
	"errors"
	"testing"

	"bbslab/entity"
)

// TestOpenWithoutCgo checks that a build without cgo says so when asked
// for SQLite, and still reports bad options first.
func TestOpenWithoutCgo(t *testing.T) {
	_, err := Open(context.Background(), entity.Options{DSN: "bbs.db", Pool: 1})
	if !errors.Is(err, ErrNoCgo) || Available {
		t.Errorf("Open without cgo = %v (Available %v); want ErrNoCgo", err, Available)
	}
	_, err = Open(context.Background(), entity.Options{DSN: "bbs.db", Pool: 0})
	if err == nil || errors.Is(err, ErrNoCgo) {
		t.Errorf("Open(pool 0) without cgo = %v; want the options error", err)
	}
}
