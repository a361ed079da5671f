// Package contract is what the board promises its tools: everything the
// load generator, the server watcher, the charts and the experiment runner
// (loadtest and its packages) know about the board, kept in one place on
// the tools' side of the dependency rule (docs/layout.md: the board's tree
// imports nothing of the load tool) and tested against the real board
// handler.
//
//   - Validate checks a running board before any load: the commands agree,
//     a post appears escaped, bad input is refused, and the X-BBS-Queries and
//     X-BBS-Acquires headers follow each command's pattern, which comes from
//     package commands (View.Expect), not from a copy.
//   - Stats, Charts and Environment say which numbers of /admin/stats the
//     watcher keeps, how the charts and the sweep table show them, and which
//     objects describe the server's environment.
//   - Disk turns the board's disk benchmark output (bbs diskbench -json)
//     into the experiment report's table, decoding diskbench's own types.
//   - StartHint tells how to start PostgreSQL when a server command line
//     that uses it did not come up.
//
// The load tool's packages stay generic: cmd/loadtest hands them these
// values. Add a stat to /admin/stats and this package is the one to
// change; TestStatPathsExist fails until it is right.
package contract

import (
	"strings"

	"bbslab/internal/pgsetup"
)

// Environment names the top-level objects of /admin/stats copied whole
// into each result's environment: the board's database ("database"), its
// machine and build ("host") and its knobs ("config").
var Environment = []string{"database", "host", "config"}

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

// StartHint returns, for a board command line that did not come up, how to
// start a PostgreSQL server when it uses one, and "" otherwise.
func StartHint(argv []string) string {
	if !UsesPostgres(argv) {
		return ""
	}
	return "this run uses PostgreSQL; if the server could not reach it:\n" + strings.TrimRight(pgsetup.Hint, "\n")
}
