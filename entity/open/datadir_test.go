package open

import "testing"

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
