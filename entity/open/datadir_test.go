package open

import (
	"slices"
	"testing"
)

func TestDataDir(t *testing.T) {
	for _, tc := range []struct{ db, dsn, want string }{
		{"sqlite", "bbs.db", "."},
		{"sqlite", "/var/lib/bbs/bbs.db", "/var/lib/bbs"},
		{"sqlite", "file:data/bbs.db?_journal_mode=WAL", "data"},
		{"sqlite", "file::memory:?cache=shared", "."},
		{"postgres", "postgres://root@127.0.0.1:5432/test", "."},
	} {
		if got := DataDir(tc.db, tc.dsn); got != tc.want {
			t.Errorf("DataDir(%q, %q) = %q; want %q", tc.db, tc.dsn, got, tc.want)
		}
	}
}

func TestDataFiles(t *testing.T) {
	files := func(p string) []string { return []string{p, p + "-wal", p + "-shm", p + "-journal"} }
	for _, tc := range []struct {
		db, dsn string
		want    []string
	}{
		{"sqlite", "bbs.db", files("bbs.db")},
		{"sqlite", "/var/lib/bbs/bbs.db", files("/var/lib/bbs/bbs.db")},
		{"sqlite", "file:data/bbs.db?_journal_mode=WAL", files("data/bbs.db")},
		{"sqlite", "file:///var/lib/my%20bbs.db?_txlock=immediate", files("/var/lib/my bbs.db")},
		{"sqlite", "file://localhost/var/lib/bbs.db", files("/var/lib/bbs.db")},
		{"sqlite", "file:bbs.db?mode=memory&cache=shared", nil},
		{"sqlite", "file::memory:?cache=shared", nil},
		{"sqlite", ":memory:", nil},
		{"postgres", "postgres://root@127.0.0.1:5432/test", nil},
	} {
		if got := DataFiles(tc.db, tc.dsn); !slices.Equal(got, tc.want) {
			t.Errorf("DataFiles(%q, %q) = %q; want %q", tc.db, tc.dsn, got, tc.want)
		}
	}
}
