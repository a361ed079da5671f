package open

import (
	"net/url"
	"path/filepath"
	"strings"
)

// DataDir returns the directory of the SQLite database file that dsn names
// (a path or a "file:" DSN), where its speed is the disk's; "." for
// PostgreSQL and in-memory databases.
func DataDir(driver, dsn string) string {
	path := sqlitePath(driver, dsn)
	if path == "" {
		return "."
	}
	return filepath.Dir(path)
}

// DataFiles returns the files of the SQLite database that dsn names: the
// database, its write-ahead log and shared-memory index (-wal, -shm) and
// its rollback journal (-journal), whether they exist yet or not; none for
// PostgreSQL and in-memory databases. They are what the board must never
// overwrite (truth_dir).
func DataFiles(driver, dsn string) []string {
	path := sqlitePath(driver, dsn)
	if path == "" {
		return nil
	}
	return []string{path, path + "-wal", path + "-shm", path + "-journal"}
}

// sqlitePath returns the database file of a SQLite dsn, "" for another
// driver or an in-memory database. The store opens a plain path as the URI
// "file:PATH?..." (entity/sqlite), so both forms are read as SQLite reads
// a URI: the path ends at "?" or "#" and is percent-decoded.
func sqlitePath(driver, dsn string) string {
	if driver != "sqlite" {
		return ""
	}
	path, query, _ := strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
	path, _, _ = strings.Cut(path, "#")
	if p, ok := strings.CutPrefix(path, "//"); ok { // file://localhost/abs, file:///abs
		if i := strings.IndexByte(p, '/'); i >= 0 {
			path = p[i:]
		}
	}
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	if v, err := url.ParseQuery(query); err == nil && v.Get("mode") == "memory" {
		return ""
	}
	if path == "" || strings.HasPrefix(path, ":memory:") {
		return ""
	}
	return path
}
