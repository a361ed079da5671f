package entity

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestOpenValidates(t *testing.T) {
	tests := []struct {
		o    Options
		want string // in the error
	}{
		{Options{Driver: "mysql", DSN: "x", Pool: 1}, "driver"},
		{Options{Driver: "sqlite", Pool: 1}, "DSN"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 0}, "pool size 0"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, PoolMin: 3}, "pool min 3"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, PoolMin: -1}, "pool min -1"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, PoolMode: "lazy"}, "pool mode"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, SeedPosts: -1}, "seed posts"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, Schema: "s"}, "schema"},
		{Options{Driver: "postgres", DSN: "x", Pool: 2, Schema: "a;b"}, "schema"},
	}
	for _, tt := range tests {
		s, err := Open(context.Background(), tt.o)
		if err == nil {
			s.Close()
			t.Errorf("Open(%+v) succeeded; want an error about %s", tt.o, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%+v) = %v; want an error about %s", tt.o, err, tt.want)
		}
	}
}

func TestOpenUnreachablePostgres(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := Options{Driver: "postgres", DSN: "postgres://root@127.0.0.1:1/test?sslmode=disable&connect_timeout=5", Pool: 1}
	s, err := Open(ctx, o)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%q) succeeded; want ErrUnavailable", o.DSN)
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Open(%q) = %v; want ErrUnavailable", o.DSN, err)
	}
}

func TestOpenSQLiteBadPath(t *testing.T) {
	t.Parallel()
	o := Options{Driver: "sqlite", DSN: "/nonexistent-dir/sub/bbs.db", Pool: 1}
	s, err := Open(context.Background(), o)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%q) succeeded; want an error", o.DSN)
	}
	if !strings.Contains(err.Error(), "sqlite") || !strings.Contains(err.Error(), o.DSN) {
		t.Errorf("Open(%q) = %v; want an error naming sqlite and the path", o.DSN, err)
	}
}
