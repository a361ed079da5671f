// Package contract is what the board promises its tools: everything the
// load generator, the server watcher, the charts and the experiment runner
// know about the board, kept in one place on the tools' side of the
// dependency rule (docs/layout.md: the board's tree imports nothing of the
// load tool) and tested against the real board handler:
//
//	x, err := experiment.Run(ctx, e, experiment.Options{Target: contract.Board, Out: "report"})
//	opts := contract.Board.Options("http://127.0.0.1:6060/admin/stats") // the watcher's
//
// Board is all of it, one watch.Target built once and handed whole to the
// watcher, the charts and the experiment runner:
//
//   - Validate checks a running board before any load: the commands agree,
//     a post appears escaped, bad input is refused, and the X-BBS-Queries and
//     X-BBS-Acquires headers follow each command's pattern, which comes from
//     package commands (View.Expect), not from a copy.
//   - Stats, Charts and Environment say which numbers of /admin/stats the
//     watcher keeps, how the charts, the live dashboard and the sweep table
//     show them, and which objects describe the server's environment;
//     States and Limiting what requests are doing and what limited a step;
//     Tuning which of them the tuner (loadtest tune) reads for what, the
//     command a page asks for, and /admin/knobs, which sets the worker
//     limit and the pool while the board runs.
//   - Disk turns the board's disk benchmark output (bbs diskbench -json)
//     into the experiment report's table, decoding diskbench's own types.
//   - StartHint tells how to start PostgreSQL when a server command line
//     that uses it did not come up.
//
// Distance and SetDistance read and set the database wait a calibration
// moves; CalibrationSpec and CalibrateBoard calibrate a board started by
// hand ("loadtest calibrate") with the experiment runner's calibration.
// The load tool's packages stay generic: cmd/loadtest hands them Board.
// Add a stat to /admin/stats and this package is the one to change;
// TestStatPathsExist fails until it is right.
package contract

import (
	"strings"

	"bbslab/internal/pgsetup"
	"bbslab/loadtest/watch"
)

// Board describes the board to the tools: its stats, charts, environment,
// request states, validation, start hint, disk table and limits, each
// defined once in this package.
var Board = watch.Target{
	StatsPath:       statsPath,
	MetricPrefix:    "bbs_",
	Stats:           stats,
	Charts:          charts,
	EnvironmentKeys: environment,
	States:          doing,
	ProcessCPU:      processCPU,
	Interference:    interference,
	Steal:           steal,
	Validate:        validate,
	StartHint:       startHint,
	Disk:            disk,
	Limiting:        limiting,
	Tuning:          tuning,
	Each:            each,
	RequestPaths:    requestPaths(),
}

// environment names the top-level objects of /admin/stats copied whole
// into each result's environment: the board's database ("database"), its
// machine and build ("host") and its knobs ("config").
var environment = []string{"database", "host", "config"}

// UsesPostgres reports whether a board command line names PostgreSQL: a
// "-db postgres" flag or a postgres:// or postgresql:// URL.
func UsesPostgres(argv []string) bool {
	for i, a := range argv {
		if strings.HasPrefix(a, "postgres://") || strings.HasPrefix(a, "postgresql://") ||
			strings.Contains(a, "-dsn=postgres") || a == "-db=postgres" || a == "--db=postgres" {
			return true
		}
		if (a == "-db" || a == "--db") && i+1 < len(argv) && argv[i+1] == "postgres" {
			return true
		}
	}
	return false
}

// startHint returns, for a board command line that did not come up, how to
// start a PostgreSQL server when it uses one, and "" otherwise.
func startHint(argv []string) string {
	if !UsesPostgres(argv) {
		return ""
	}
	return "this run uses PostgreSQL; if the server could not reach it:\n" + strings.TrimRight(pgsetup.Hint, "\n")
}
