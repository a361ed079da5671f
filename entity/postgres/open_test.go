package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"bbslab/entity"
)

func TestOpenUnreachablePostgres(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := entity.Options{Driver: "postgres", DSN: "postgres://root@127.0.0.1:1/test?sslmode=disable&connect_timeout=5", Pool: 1}
	s, err := Open(ctx, o)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%q) succeeded; want entity.ErrUnavailable", o.DSN)
	}
	if !errors.Is(err, entity.ErrUnavailable) {
		t.Errorf("Open(%q) = %v; want entity.ErrUnavailable", o.DSN, err)
	}
}
