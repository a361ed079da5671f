package entity

import "testing"

func TestServerPort(t *testing.T) {
	tests := []struct {
		driver, dsn string
		port        int
		ok          bool
	}{
		{"postgres", "postgres://root@127.0.0.1:5433/test?sslmode=disable", 5433, true},
		{"postgres", "postgres://root@127.0.0.1/test", 5432, true},
		{"postgres", "host=127.0.0.1 port=6000 user=root", 6000, true},
		{"postgres", "host=/var/run/postgresql user=root", 0, false},
		{"postgres", "::not a dsn::", 0, false},
		{"sqlite", "bbs.db", 0, false},
	}
	for _, tt := range tests {
		port, ok := ServerPort(tt.driver, tt.dsn)
		if port != tt.port || ok != tt.ok {
			t.Errorf("ServerPort(%q, %q) = %d, %v; want %d, %v", tt.driver, tt.dsn, port, ok, tt.port, tt.ok)
		}
	}
}

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
