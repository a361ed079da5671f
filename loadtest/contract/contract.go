// Package contract is what the board promises its tools, kept in one
// place on the tools' side of the dependency rule and tested against the
// real board handler:
//
//	x, err := experiment.Run(ctx, e, experiment.Options{Target: contract.Board, Out: "report"})
//	opts := contract.Board.Options("http://127.0.0.1:6060/admin/stats") // the watcher's
//
// Board is all of it, one watch.Target handed whole to the watcher, the
// charts, the tuner and the experiment runner: the board's validation,
// its stats and how they are shown, its request states, what limited a
// step, its knobs, its disk benchmark's table and a hint for starting
// PostgreSQL. Distance, SetDistance and CalibrateBoard calibrate a board
// started by hand ("loadtest calibrate"). Add a stat to /admin/stats and
// this package is the one to change; TestStatPathsExist fails until it is
// right.
package contract

import (
	"strings"

	"bbslab/internal/pgsetup"
	"bbslab/loadtest/watch"
)

// Board describes the board to the tools.
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
// into each result's environment.
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

// startHint tells how to start PostgreSQL when a board command line that
// uses it did not come up.
func startHint(argv []string) string {
	if !UsesPostgres(argv) {
		return ""
	}
	return "this run uses PostgreSQL; if the server could not reach it:\n" + strings.TrimRight(pgsetup.Hint, "\n")
}
