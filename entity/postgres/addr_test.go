package postgres

import "testing"

func TestServerPort(t *testing.T) {
	tests := []struct {
		dsn  string
		port int
		ok   bool
	}{
		{"postgres://root@127.0.0.1:5433/test?sslmode=disable", 5433, true},
		{"postgres://root@127.0.0.1/test", 5432, true},
		{"host=127.0.0.1 port=6000 user=root", 6000, true},
		{"host=/var/run/postgresql user=root", 0, false},
		{"::not a dsn::", 0, false},
	}
	for _, tt := range tests {
		port, ok := ServerPort(tt.dsn)
		if port != tt.port || ok != tt.ok {
			t.Errorf("ServerPort(%q) = %d, %v; want %d, %v", tt.dsn, port, ok, tt.port, tt.ok)
		}
	}
}
