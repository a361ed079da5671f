//go:build !cgo

package main

import (
	"context"
	"errors"
	"io"
	"testing"

	"bbslab/entity/sqlite"
)

// TestNoCgoSQLite checks that a build without cgo refuses -db sqlite at
// start-up with a message that says what to do, rather than failing inside
// the driver's stub.
//
//	CGO_ENABLED=0 go test -run NoCgo ./cmd/bbs
func TestNoCgoSQLite(t *testing.T) {
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-db", "sqlite", "-dsn", t.TempDir() + "/bbs.db"}, func(string) string { return "" }, io.Discard, io.Discard)
	if !errors.Is(err, sqlite.ErrNoCgo) {
		t.Errorf("run(-db sqlite) without cgo = %v; want %v", err, sqlite.ErrNoCgo)
	}
}
