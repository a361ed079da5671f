package main

import (
	"context"
	"log/slog"
	"time"

	"bbslab/bbs"
	"bbslab/config"
)

// warmUp runs the server's warm-up pass when the warmup knob is on. An error
// stops the server, unless ctx ended first (then serve simply shuts down).
func warmUp(ctx context.Context, cfg config.Config, srv *bbs.Server, log *slog.Logger) error {
	if !cfg.Warmup {
		return nil
	}
	start := time.Now()
	if err := srv.WarmUp(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	log.Info("warm-up done", "page_size", cfg.PageSize, "seconds", time.Since(start).Seconds())
	return nil
}
