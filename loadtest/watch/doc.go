// Package watch watches a load target while a run goes on:
//
//	w, err := watch.New(target.Options("http://127.0.0.1:6060/stats")) // target: a Target, e.g. contract.Board
//	res, err := loadtest.Run(ctx, loadtest.Settings{..., Watch: w})
//	seen, err := watch.Of(res) // what it saw: the server's figures, the profiles
//
// It polls the target's stats JSON (or Prometheus text) once a second over
// the measured window and keeps the numbers its Stats name (a gauge's mean,
// a counter's rate per second or per request), copies the JSON objects that
// describe the target's environment, and takes CPU or wall-clock (fgprof)
// profiles and summarises them. With Options.OnRead it also hands every
// poll's per-second values and request-state shares (Read, State) to a
// callback as the run goes, warm-up included: the live dashboard's server
// side.
//
// A Watcher, made by New from Options, is what loadtest.Settings.Watcher
// takes. What a run's Watch saw (Seen: ServerStats, ProfileSummary) is
// this package's: the engine keeps it in the Result as JSON it does not
// read, and Of reads it back; Summary and Columns are its lines in the text
// output (package text). The watcher knows no target: the stats, their
// chart placement (Stat.Chart, Chart) and their sweep-table columns
// (Columns) are data it is given. A Target holds all the tools know of a
// server under test, built once (for the board: contract.Board in package
// loadtest/contract), and Target.Watcher makes the watcher a caller asks
// for, completing its options from the target. A stat the target never
// reported is named in the run's warnings unless it is Optional.
package watch
