package bbs

import (
	"context"
	"fmt"
	"time"

	"bbslab/commands"
)

// WarmUp runs each command once, reading PageSize posts and storing nothing,
// so that statements are prepared, connections have been used and caches are
// warm before the first measured request (seed 003: the first runs after a
// start are the slow ones). While it runs, /readyz answers 503 saying so; the
// caller reports ready with SetReady(true) after it returns. Warm-up runs
// are not counted in the statistics of /admin/stats.
func (s *Server) WarmUp(ctx context.Context) error {
	s.warming.Store(true)
	defer s.warming.Store(false)
	for _, v := range commands.Views {
		start := time.Now()
		res, err := v.Run(ctx, s.store, commands.Request{N: s.opt.PageSize})
		if err != nil {
			return fmt.Errorf("warm-up %s: %w", v.Name(), err)
		}
		s.log.Info("warm-up", "command", v.Name(), "posts", len(res.Posts),
			"queries", res.Tally.Queries, "acquires", res.Tally.Acquires, "seconds", time.Since(start).Seconds())
	}
	return nil
}
