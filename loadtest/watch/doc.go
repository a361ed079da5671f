// Package watch watches a load target while a run goes on:
//
//	w, err := target.Watcher(watch.Options{StatsURL: "http://127.0.0.1:6060/stats"}) // e.g. contract.Board
//	res, err := loadtest.Run(ctx, loadtest.Settings{..., Watcher: w})
//	seen, err := watch.Of(res) // what it saw: the server's figures, the profiles
//
// It polls the target's stats (JSON or Prometheus text) once a second and
// takes CPU or fgprof profiles; Options.OnRead feeds the live dashboard. It
// knows no target: a Target holds what the tools know of a server.
package watch
