package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"bbslab/config"
	"bbslab/entity"
	"bbslab/entity/open"
	"bbslab/internal/pgsetup"
)

// openStore opens the store cfg names, waiting up to db_wait for the
// database and telling status of each failed attempt; trace, when set,
// receives the SQL trace. A PostgreSQL that cannot be reached gets the
// hint on how to start one (pgsetup.Hint) on stderr.
func openStore(ctx context.Context, cfg config.Config, log *slog.Logger, trace io.Writer, status func(string), stderr io.Writer) (entity.Store, error) {
	start := time.Now()
	store, err := openWithWait(ctx, time.Duration(cfg.DBWait), log, entity.Options{
		Driver:       cfg.DB,
		DSN:          cfg.DSN,
		Pool:         cfg.Pool,
		PoolMin:      cfg.PoolMin,
		PoolMode:     cfg.PoolMode,
		PoolValidate: cfg.PoolValidate,
		ExecMode:     cfg.PGExecMode,
		SeedPosts:    cfg.SeedPosts,
		Distance: entity.Distance{
			Latency: time.Duration(cfg.DBLatency),
			Jitter:  time.Duration(cfg.DBLatencyJitter),
			Connect: time.Duration(cfg.ConnectLatency),
			// The admin listener's /admin/distance sets the wait while
			// the board runs (loadtest calibrate).
			Adjustable: true,
		},
		Trace: trace,
	}, func(attempt int, left time.Duration) {
		status(fmt.Sprintf("starting: waiting for the database (attempt %d failed; db_wait leaves %v)", attempt, left.Round(100*time.Millisecond)))
	})
	if err != nil {
		// The hint on starting a server is for a server that did not
		// answer; one that answered and refused (too many connections for
		// a role's CONNECTION LIMIT, shutting down) runs already.
		var answered *pgconn.PgError
		if cfg.DB == "postgres" && errors.Is(err, entity.ErrUnavailable) && !errors.As(err, &answered) {
			fmt.Fprint(stderr, pgsetup.Hint)
		}
		return nil, err
	}
	log.Info("database ready", "db", cfg.DB, "pool", cfg.Pool, "pool_min", cfg.PoolMin, "pool_mode", cfg.PoolMode, "pool_validate", cfg.PoolValidate, "pg_exec_mode", cfg.PGExecMode, "db_latency", cfg.DBLatency.String(), "db_latency_jitter", cfg.DBLatencyJitter.String(), "connect_latency", cfg.ConnectLatency.String(), "seconds", time.Since(start).Seconds())
	return store, nil
}

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
