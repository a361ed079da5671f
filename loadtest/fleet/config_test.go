package fleet

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func haproxyConfig() HAProxyConfig {
	return HAProxyConfig{
		Addr: "127.0.0.1:8000", StatsAddr: "127.0.0.1:8001", Balance: "leastconn", CheckPath: "/readyz", ServerMaxConn: 7,
		Servers: []HAProxyServer{{"r1", "127.0.0.1:9001", 9101}, {"r2", "127.0.0.1:9002", 9102}},
	}
}

func TestRenderHAProxy(t *testing.T) {
	b, err := haproxyConfig().Render()
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	for _, want := range []string{
		"bind 127.0.0.1:8000", "balance leastconn", "option httpchk GET /readyz", "maxconn 7",
		"server r1 127.0.0.1:9001 check port 9101", "server r2 127.0.0.1:9002 check port 9102",
		"bind 127.0.0.1:8001", "http-request use-service prometheus-exporter if { path /metrics }",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("haproxy.cfg lacks %q:\n%s", want, cfg)
		}
	}
	var directives []string
	for _, l := range strings.Split(cfg, "\n") {
		if l = strings.TrimSpace(l); l != "" && l[0] != '#' {
			directives = append(directives, l)
		}
	}
	for _, bad := range []string{"daemon", "chroot", "/etc/", "pidfile", "user ", "group "} {
		if strings.Contains(strings.Join(directives, "\n"), bad) {
			t.Errorf("haproxy.cfg has %q: the fleet's HAProxy is a foreground child that touches nothing of the machine's", bad)
		}
	}
	// HAProxy itself checks the file, when it is installed.
	if bin, err := Binary("haproxy"); err == nil {
		p := filepath.Join(t.TempDir(), "haproxy.cfg")
		os.WriteFile(p, b, 0o600)
		if out, err := exec.Command(bin, "-c", "-f", p).CombinedOutput(); err != nil {
			t.Errorf("haproxy -c -f haproxy.cfg: %v\n%s\n%s", err, out, cfg)
		}
	}
}

func TestRenderChecks(t *testing.T) {
	c := haproxyConfig()
	c.Balance = "random"
	if _, err := c.Render(); err == nil || !strings.Contains(err.Error(), "leastconn or roundrobin") {
		t.Errorf("balance random: %v; want an error naming leastconn and roundrobin", err)
	}
	p := PgBouncerConfig{ListenHost: "127.0.0.1", ListenPort: 1, ServerHost: "127.0.0.1", ServerPort: 5432, Database: "d", User: "u", Mode: "statement", PoolSize: 5, MaxClientConn: 10, AuthFile: "/x", StatsUser: "s"}
	if _, err := p.Render(); err == nil || !strings.Contains(err.Error(), `"transaction"`) {
		t.Errorf("pgbouncer mode statement: %v; want an error naming session and transaction", err)
	}
	p.Mode, p.User = ModeTransaction, "u; drop"
	if _, err := p.Render(); err == nil {
		t.Error("pgbouncer user with a semicolon rendered")
	}
	if _, err := RenderUserlist([]Login{{`a"b`, "x"}}); err == nil {
		t.Error("a userlist name with a quote rendered")
	}
}

func TestRenderPgBouncer(t *testing.T) {
	b, err := PgBouncerConfig{ListenHost: "127.0.0.1", ListenPort: 6432, ServerHost: "127.0.0.1", ServerPort: 5432, Database: "lab", User: "lab", Mode: ModeTransaction, PoolSize: 4, MaxClientConn: 100, AuthFile: "/tmp/x/userlist.txt", StatsUser: StatsUser}.Render()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"lab = host=127.0.0.1 port=5432 dbname=lab user=lab", "listen_port = 6432", "pool_mode = transaction",
		"default_pool_size = 4", "max_client_conn = 100", "auth_file = /tmp/x/userlist.txt", "stats_users = " + StatsUser, "unix_socket_dir =\n",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("pgbouncer.ini lacks %q:\n%s", want, b)
		}
	}
	u, err := RenderUserlist([]Login{{"lab", "pw1"}, {StatsUser, "pw2"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(u)), "\"lab\" \"pw1\"\n\""+StatsUser+"\" \"pw2\""; got != want {
		t.Errorf("userlist = %q; want %q", got, want)
	}
}

func TestParseText(t *testing.T) {
	ss, err := ParseText(strings.NewReader(`# HELP haproxy_server_status x
haproxy_server_status{proxy="boards",server="r1",state="UP"} 1
haproxy_server_status{proxy="boards",server="r1",state="DOWN"} 0
haproxy_frontend_http_requests_total{proxy="board"} 1234
haproxy_process_uptime_seconds 5.5
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 4 {
		t.Fatalf("%d samples; want 4: %+v", len(ss), ss)
	}
	if got := Sum(ss, "haproxy_frontend_http_requests_total", map[string]string{"proxy": "board"}); got != 1234 {
		t.Errorf("frontend requests = %v; want 1234", got)
	}
	if got := Sum(ss, "haproxy_server_status", map[string]string{"state": "UP"}); got != 1 {
		t.Errorf("servers UP = %v; want 1", got)
	}
	if got := Sum(ss, "haproxy_process_uptime_seconds", nil); got != 5.5 {
		t.Errorf("uptime = %v; want 5.5", got)
	}
}

// TestFreePortsDistinct asks for many ports at once: every one is
// distinct, as a replica's port and admin port must be.
func TestFreePortsDistinct(t *testing.T) {
	ports, err := FreePorts(64)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] || p == 0 {
			t.Fatalf("FreePorts(64) = %v: port %d twice or zero", ports, p)
		}
		seen[p] = true
	}
}
