// Package watch watches a load target while a run goes on:
//
//	w, err := target.Watcher(watch.Options{StatsURL: "http://127.0.0.1:6060/stats"}) // e.g. contract.Board
//	res, err := loadtest.Run(ctx, loadtest.Settings{..., Watcher: w})
//	seen, err := watch.Of(res) // what it saw: the server's figures, the profiles
//
// It polls the target's stats JSON (or Prometheus text) once a second over
// the measured window, keeps the numbers its Stats name, copies the JSON
// objects that describe the target's environment, and takes CPU or
// wall-clock (fgprof) profiles. With Options.OnRead it also hands every
// poll's per-second values to a callback as the run goes: the live
// dashboard's server side.
//
// The watcher knows no target: the stats, their charts and their
// sweep-table columns are data it is given. A Target holds all the tools
// know of a server under test, built once (for the board: contract.Board).
package watch
