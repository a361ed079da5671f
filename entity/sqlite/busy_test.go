//go:build cgo

package sqlite

import (
	"bbslab/entity"
	"bbslab/entity/storetest"
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"
)

func TestSliceBusyTimeout(t *testing.T) {
	tests := []struct {
		dsn    string
		budget time.Duration
	}{
		{"file:a.db?" + sqliteParams, 5 * time.Second},
		{"file:a.db?_busy_timeout=300&_journal_mode=WAL", 300 * time.Millisecond},
		{"file:a.db?_timeout=50", 50 * time.Millisecond},
		{"file:a.db", defaultBusyTimeout},
	}
	for _, tt := range tests {
		got, budget := sliceBusyTimeout(tt.dsn)
		if budget != tt.budget {
			t.Errorf("sliceBusyTimeout(%q) budget = %v; want %v", tt.dsn, budget, tt.budget)
		}
		want := "_busy_timeout=" + map[bool]string{true: "100", false: "50"}[tt.budget >= busySlice]
		if !strings.Contains(got, want) || strings.Count(got, "timeout=") != 1 || !strings.HasPrefix(got, "file:a.db?") {
			t.Errorf("sliceBusyTimeout(%q) = %q; want one %s", tt.dsn, got, want)
		}
	}
}

func TestRetryBusy(t *testing.T) {
	busy := sqlite3.Error{Code: sqlite3.ErrBusy}
	calls := 0
	err := retryBusy(context.Background(), time.Second, func() error {
		calls++
		if calls < 3 {
			return busy
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("retryBusy = %v after %d calls; want nil after 3", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls = 0
	err = retryBusy(ctx, time.Hour, func() error { calls++; cancel(); return busy })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("retryBusy with a cancelled context = %v after %d calls; want context.Canceled after 1", err, calls)
	}
	err = retryBusy(context.Background(), 0, func() error { return busy })
	if !isBusy(err) {
		t.Errorf("retryBusy past its budget = %v; want SQLITE_BUSY", err)
	}
	// It wraps every SQLite statement: one that succeeds costs nothing.
	if n := testing.AllocsPerRun(100, func() { retryBusy(context.Background(), time.Second, func() error { return nil }) }); n != 0 {
		t.Errorf("retryBusy of a statement that succeeds: %v allocations; want 0", n)
	}
}

// TestBusyRetriesCounted holds SQLite's write lock from a connection of
// its own until an Insert has been sent twice (SQLITE_BUSY, then a retry),
// and checks that the entity.Conn counts every statement sent.
func TestBusyRetriesCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t, entity.Options{Pool: 1, SeedPosts: 3})
	locker, err := sql.Open("sqlite3", sqliteDSN(s.(*sqliteStore).o.DSN))
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	lock, err := locker.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatalf("take the write lock: %v", err)
	}
	c := storetest.Acquire(t, s)
	done := make(chan error, 1)
	go func() {
		_, err := c.Insert(ctx, "busy", "retried")
		done <- err
	}()
	storetest.WaitFor(t, "the insert to be sent again after SQLITE_BUSY", func() bool { return c.Statements() >= 2 })
	if _, err := lock.ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatalf("free the write lock: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Insert once the lock was freed: %v", err)
	}
	sent := c.Statements()
	t.Logf("one Insert sent %d times", sent)
	if sent < 2 {
		t.Errorf("Statements() = %d after an Insert that met SQLITE_BUSY; want 2 or more", sent)
	}
	if _, err := c.Newest(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := c.Statements(); got != sent+1 {
		t.Errorf("Statements() after one more query = %d; want %d", got, sent+1)
	}
}
