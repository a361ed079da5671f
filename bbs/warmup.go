package bbs

import (
	"context"
	"fmt"
	"time"

	"bbslab/commands"
)

// WarmUp runs each command once, reading PageSize posts and storing nothing,
// so that statements are prepared, connections have been used and caches are
// warm before the first measured request (the real-time Java article on
// latency outliers: the first runs after a start are the slow ones). While
// it runs, /readyz answers 503 saying so; the caller reports ready with
// SetReady(true) after it returns.
//
// One rule for the counters: warm-up runs are counted in every counter of
// the database work, as one request of each command. The pool's counters
// (acquires, opened_total, the waiting and in-use integrals, the acquire
// histogram) cannot tell a warm-up acquire from a request's, so the command
// counters of /admin/stats and bbs_db_queries_total count them too, and
// the commands' acquires always add up to the pool's. They are not HTTP
// requests: the status counts, bbs_requests_total, the access log and the
// worker limit never see them.
func (s *Server) WarmUp(ctx context.Context) error {
	s.warming.Store(true)
	defer s.warming.Store(false)
	for _, v := range commands.Views {
		start := time.Now()
		res, err := v.Run(ctx, s.store, commands.Request{N: s.opt.PageSize})
		s.stats.record(v.Name(), res.Tally, err == nil)
		if res.Tally.Queries > 0 {
			s.metrics.queries.WithLabelValues(v.Name()).Add(float64(res.Tally.Queries))
		}
		if err != nil {
			return fmt.Errorf("warm-up %s: %w", v.Name(), err)
		}
		s.log.Info("warm-up", "command", v.Name(), "posts", len(res.Posts),
			"queries", res.Tally.Queries, "acquires", res.Tally.Acquires, "seconds", time.Since(start).Seconds())
	}
	return nil
}
