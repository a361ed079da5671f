//go:build cgo

package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/mattn/go-sqlite3"

	"bbslab/entity"
)

// TestClassify checks which errors the driver marks entity.ErrUnavailable,
// keeping the original error in the chain.
func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool // errors.Is(classify(err), entity.ErrUnavailable)
	}{
		{"sqlite busy", sqlite3.Error{Code: sqlite3.ErrBusy}, true},
		{"sqlite locked", fmt.Errorf("query: %w", sqlite3.Error{Code: sqlite3.ErrLocked}), true},
		{"sqlite constraint", sqlite3.Error{Code: sqlite3.ErrConstraint}, false},
		{"net error", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("refused")}, true},
		{"bad conn", driver.ErrBadConn, true},
		{"canceled", context.Canceled, false},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), false},
		{"not found", entity.ErrNotFound, false},
		{"other", errors.New("boom"), false},
	}
	for _, tt := range tests {
		got := classify(tt.err)
		if is := errors.Is(got, entity.ErrUnavailable); is != tt.want {
			t.Errorf("classify(%s) = %v; entity.ErrUnavailable %v, want %v", tt.name, got, is, tt.want)
		}
		if !errors.Is(got, tt.err) {
			t.Errorf("classify(%s) = %v; lost the original error", tt.name, got)
		}
	}
}
