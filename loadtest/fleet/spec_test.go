package fleet

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecCheck: fixed ports are checked for every replica, and a relative
// work directory is made absolute (HAProxy and PgBouncer run inside it and
// would read a relative path from there).
func TestSpecCheck(t *testing.T) {
	ok := Spec{Replica: []string{"x"}, Replicas: 2, Ready: "/readyz", Balance: "leastconn", AdminDSN: "postgres://x", WorkDir: "out/fleet",
		Port: 8080, MetricsPort: 8404, AdminPort: 6061}
	s := ok
	if err := s.check(); err != nil {
		t.Fatalf("check(%+v) = %v", ok, err)
	}
	if want, _ := filepath.Abs("out/fleet"); s.WorkDir != want {
		t.Errorf("check: work directory %q; want %q", s.WorkDir, want)
	}
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"negative port", func(s *Spec) { s.Port = -1 }, "port -1"},
		{"metrics port beyond 65535", func(s *Spec) { s.MetricsPort = 70000 }, "metrics port 70000"},
		{"the last replica's admin port beyond 65535", func(s *Spec) { s.AdminPort = 65535 }, "admin port 65535"},
	} {
		s := ok
		tc.edit(&s)
		if err := s.check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("check(%s) = %v; want an error naming %q", tc.name, err, tc.want)
		}
	}
}

// TestUsageNamesThePlaceholders checks that the description names each
// placeholder a replica's command may hold.
func TestUsageNamesThePlaceholders(t *testing.T) {
	for _, p := range []string{"{{port}}", "{{admin_port}}", "{{replica}}", "{{dsn}}", "{{dir}}"} {
		if !strings.Contains(Usage, p) {
			t.Errorf("Usage does not name %s:\n%s", p, Usage)
		}
	}
}
