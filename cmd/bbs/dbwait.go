package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"bbslab/entity"
	"bbslab/entity/open"
)

// Back-off between start-up attempts to reach the database.
const (
	firstRetry = 250 * time.Millisecond
	maxRetry   = 2 * time.Second
)

// openWithWait opens the store. When the database cannot be reached
// (entity.ErrUnavailable) it retries with a doubling back-off for up to
// wait (the db_wait knob); a wait of 0 fails at once. Other errors, such as
// a bad DSN or a failed migration, are never retried. Before each retry it
// calls retrying with the attempt that failed and the wait left.
func openWithWait(ctx context.Context, wait time.Duration, log *slog.Logger, o entity.Options, retrying func(attempt int, left time.Duration)) (entity.Store, error) {
	deadline := time.Now().Add(wait)
	delay := firstRetry
	for attempt := 1; ; attempt++ {
		store, err := open.Store(ctx, o)
		if err == nil {
			return store, nil
		}
		if !errors.Is(err, entity.ErrUnavailable) {
			return nil, err
		}
		if wait <= 0 {
			return nil, fmt.Errorf("database not reachable at start-up (set db_wait to wait for it): %w", err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fmt.Errorf("database not reachable after waiting %v (db_wait), %d attempts: %w", wait, attempt, err)
		}
		d := min(delay, left)
		log.Warn("database not reachable; retrying", "attempt", attempt, "retry_in", d.String(), "left", left.Round(time.Millisecond).String(), "err", err)
		retrying(attempt, left)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("stopped while waiting for the database: %w", err)
		case <-time.After(d):
		}
		delay = min(2*delay, maxRetry)
	}
}
