//go:build cgo

package sqlite

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"
)

// SQLite's busy handler sleeps inside the C library and does not look at
// sqlite3_interrupt, so a statement waiting for another writer's lock
// cannot be stopped by its context: a client that left, or a request past
// its deadline, would hold a worker and a connection for the whole
// busy_timeout. So the connection's own busy_timeout is cut to busySlice,
// and the statement is retried from Go, checking the context between
// slices, until the DSN's busy_timeout (the budget) is spent. A statement
// that got SQLITE_BUSY wrote nothing, so running it again is safe.

// busySlice is SQLite's busy_timeout per attempt.
const busySlice = 100 * time.Millisecond

// defaultBusyTimeout is go-sqlite3's busy_timeout when a DSN sets none.
const defaultBusyTimeout = 5 * time.Second

// sliceBusyTimeout returns dsn with _busy_timeout (or its alias _timeout)
// set to busySlice, and the budget the DSN asked for.
func sliceBusyTimeout(dsn string) (string, time.Duration) {
	path, query, _ := strings.Cut(dsn, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return dsn, defaultBusyTimeout // go-sqlite3 will report the bad DSN
	}
	budget := defaultBusyTimeout
	for _, k := range []string{"_busy_timeout", "_timeout"} {
		if v := q.Get(k); v != "" {
			if ms, err := strconv.Atoi(v); err == nil && ms >= 0 {
				budget = time.Duration(ms) * time.Millisecond
			}
			q.Del(k)
		}
	}
	q.Set("_busy_timeout", strconv.Itoa(int(min(budget, busySlice)/time.Millisecond)))
	return path + "?" + q.Encode(), budget
}

// retryBusy runs f until it does not fail with SQLITE_BUSY, ctx ends, or
// budget has passed since its first SQLITE_BUSY, as SQLite's own
// busy_timeout counts. A statement that succeeds at once, the usual case,
// costs no clock read.
func retryBusy(ctx context.Context, budget time.Duration, f func() error) error {
	var end time.Time
	for {
		err := f()
		if !isBusy(err) {
			return err
		}
		if end.IsZero() {
			end = time.Now().Add(budget)
		}
		if !time.Now().Before(end) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY.
func isBusy(err error) bool {
	if err == nil {
		return false // before errors.As, whose target escapes to the heap
	}
	var e sqlite3.Error
	return errors.As(err, &e) && e.Code == sqlite3.ErrBusy
}
