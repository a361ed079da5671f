package loadtest

import (
	"net/url"
	"strings"

	"bbslab/internal/pgsetup"
)

// usesPostgres reports whether a server command line names PostgreSQL: a
// "-db postgres" flag or a postgres:// or postgresql:// URL.
func usesPostgres(argv []string) bool {
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

// hintPostgres logs, for a server that did not come up, how to start a
// PostgreSQL server when its command line uses one.
func (x *experimentRunner) hintPostgres(argv []string) {
	if usesPostgres(argv) {
		x.logf("this run uses PostgreSQL; if the server could not reach it:\n%s", pgsetup.Hint)
	}
}

// redactURLs returns a copy of argv with the password of every URL
// argument, such as a PostgreSQL DSN from BBS_PG_DSN, replaced by xxxxx,
// for the log and the result: a report is handed out.
func redactURLs(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a
		prefix, v := "", a
		if k, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") {
			prefix, v = k+"=", val
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				out[i] = prefix + u.Redacted()
			}
		}
	}
	return out
}
