package fleetwatch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"bbslab/internal/testenv"
)

// freePort returns a loopback port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startProc starts argv and stops it (SIGTERM, then kill) when the test
// ends; its output goes to the test log on failure.
func startProc(t *testing.T, argv ...string) {
	t.Helper()
	var out strings.Builder
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("%s:\n%s", argv[0], out.String())
		}
	})
}

// waitFor calls ok every 50 ms until it is true or 10 s have passed.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("after 10 s: %s", what)
}

// StartHAProxy starts Debian's haproxy (2.6, with USE_PROMEX) in front of
// servers (name -> host:port, maxconn each) from a minimal configuration in
// a temporary directory, and returns the frontend's and the exporter's
// URLs.
func StartHAProxy(t *testing.T, maxconn int, servers ...[2]string) (front, metrics string) {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	testenv.Need(t, err == nil, "haproxy is not installed (apt-get install haproxy)")
	fp, mp := freePort(t), freePort(t)
	var b strings.Builder
	fmt.Fprintf(&b, `global
    maxconn 500
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout queue 30s
frontend fe
    bind 127.0.0.1:%d
    default_backend boards
frontend prometheus
    bind 127.0.0.1:%d
    http-request use-service prometheus-exporter if { path /metrics }
backend boards
    balance roundrobin
`, fp, mp)
	for _, s := range servers {
		fmt.Fprintf(&b, "    server %s %s maxconn %d\n", s[0], s[1], maxconn)
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	startProc(t, bin, "-db", "-f", cfg)
	front, metrics = fmt.Sprintf("http://127.0.0.1:%d", fp), fmt.Sprintf("http://127.0.0.1:%d/metrics", mp)
	waitFor(t, "haproxy's exporter answers", func() bool {
		_, err := ReadHAProxy(context.Background(), http.DefaultClient, metrics)
		return err == nil
	})
	return front, metrics
}

// StartPgBouncer starts Debian's pgbouncer (1.18) pooling database db of
// the PostgreSQL at dsn (trust authentication) as user (dsn's user when
// "") in mode with a pool of size, and returns its port; dsn's user is its
// console's admin. PgBouncer refuses to run as root: as root,
// it is started with -u postgres, its files readable by that user.
func StartPgBouncer(t *testing.T, dsn, db, user, mode string, size int) int {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	testenv.Need(t, err == nil, "pgbouncer is not installed (apt-get install pgbouncer)")
	host, port, admin := dsnParts(t, dsn)
	if user == "" {
		user = admin
	}
	dir, err := os.MkdirTemp("", "fleetwatch-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lp := freePort(t)
	ini := fmt.Sprintf(`[databases]
%s = host=%s port=%s dbname=%s user=%s
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s/users.txt
admin_users = %s
stats_users = %s
ignore_startup_parameters = extra_float_digits
pool_mode = %s
default_pool_size = %d
max_client_conn = 200
`, db, host, port, db, user, lp, dir, admin, admin, mode, size)
	users := fmt.Sprintf("%q \"\"\n%q \"\"\n", admin, user)
	for name, body := range map[string]string{"pgbouncer.ini": ini, "users.txt": users} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	argv := []string{bin}
	if os.Geteuid() == 0 {
		argv = append(argv, "-u", "postgres")
	}
	startProc(t, append(argv, filepath.Join(dir, "pgbouncer.ini"))...)
	waitFor(t, "pgbouncer listens", func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", lp))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return lp
}
