// Package contract is what the board promises its tools, kept in one
// place on the tools' side of the dependency rule and tested against the
// real board handler:
//
//	x, err := experiment.Run(ctx, e, experiment.Options{Target: contract.Board, Out: "report"})
//	opts := contract.Board.Options("http://127.0.0.1:6060/admin/stats") // the watcher's
//
// Add a stat to /admin/stats and this package is the one to change;
// TestStatPathsExist fails until it is right.
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

// environment names the /admin/stats objects copied whole into each result.
var environment = []string{"database", "host", "config"}

// UsesPostgres reports whether a board command line names PostgreSQL.
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

// startHint tells how to start PostgreSQL for a board that did not come up.
func startHint(argv []string) string {
	if !UsesPostgres(argv) {
		return ""
	}
	return "this run uses PostgreSQL; if the server could not reach it:\n" + strings.TrimRight(pgsetup.Hint, "\n")
}
