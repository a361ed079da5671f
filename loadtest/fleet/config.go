package fleet

import (
	"bytes"
	"cmp"
	"embed"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

var templates = template.Must(template.ParseFS(templateFS, "templates/*.tmpl"))

// Balances are the HAProxy balance algorithms a fleet accepts.
var Balances = []string{"leastconn", "roundrobin"}

// Pool modes of PgBouncer a fleet accepts.
const (
	ModeSession     = "session"
	ModeTransaction = "transaction"
)

// HAProxyConfig is what haproxy.cfg.tmpl is filled with.
type HAProxyConfig struct {
	// Addr is the fleet's one address; StatsAddr serves /metrics and /stats.
	Addr, StatsAddr string
	Balance         string
	// CheckPath is each replica's health check, asked on its CheckPort.
	CheckPath     string
	CheckInterval string
	// ServerMaxConn caps each replica's requests (0: none); QueueTimeout the wait.
	ServerMaxConn int
	QueueTimeout  string
	MaxConn       int // process-wide
	Servers       []HAProxyServer
}

// HAProxyServer is one replica in the backend.
type HAProxyServer struct {
	Name, Addr string
	CheckPort  int
}

// PgBouncerConfig is what pgbouncer.ini.tmpl is filled with.
type PgBouncerConfig struct {
	ListenHost string
	ListenPort int
	// ServerHost and ServerPort are PostgreSQL's; Database is alike both sides.
	ServerHost    string
	ServerPort    int
	Database      string
	User          string
	Mode          string
	PoolSize      int
	MaxClientConn int
	AuthFile      string // the userlist's path
	StatsUser     string
}

// A Login is a user of PgBouncer's auth_file.
type Login struct{ Name, Password string }

// Render checks c and fills haproxy.cfg.tmpl.
func (c HAProxyConfig) Render() ([]byte, error) {
	switch {
	case !slices.Contains(Balances, c.Balance):
		return nil, fmt.Errorf("balance %q: want %s", c.Balance, strings.Join(Balances, " or "))
	case len(c.Servers) == 0:
		return nil, fmt.Errorf("no replicas: want at least one server")
	case c.ServerMaxConn < 0:
		return nil, fmt.Errorf("server maxconn %d: want 0 (no cap) or more", c.ServerMaxConn)
	case !strings.HasPrefix(c.CheckPath, "/"):
		return nil, fmt.Errorf("health check path %q: want a path such as /readyz", c.CheckPath)
	}
	c.CheckInterval = cmp.Or(c.CheckInterval, "500ms")
	c.QueueTimeout = cmp.Or(c.QueueTimeout, "30s")
	c.MaxConn = cmp.Or(c.MaxConn, 4096)
	return execute("haproxy.cfg.tmpl", c)
}

// Render checks c and fills pgbouncer.ini.tmpl.
func (c PgBouncerConfig) Render() ([]byte, error) {
	switch {
	case c.Mode != ModeSession && c.Mode != ModeTransaction:
		return nil, fmt.Errorf("pgbouncer mode %q: want %q or %q", c.Mode, ModeSession, ModeTransaction)
	case c.PoolSize < 1 || c.PoolSize > 10_000:
		return nil, fmt.Errorf("pgbouncer pool size %d: want 1..10000", c.PoolSize)
	case c.MaxClientConn < 1:
		return nil, fmt.Errorf("pgbouncer max client connections %d: want at least 1", c.MaxClientConn)
	}
	for _, s := range []string{c.Database, c.User, c.StatsUser} {
		if !plainName.MatchString(s) {
			return nil, fmt.Errorf("pgbouncer name %q: want letters, digits and underscores", s)
		}
	}
	return execute("pgbouncer.ini.tmpl", c)
}

// RenderUserlist fills userlist.txt.tmpl, PgBouncer's auth_file.
func RenderUserlist(logins []Login) ([]byte, error) {
	for _, l := range logins {
		if strings.ContainsAny(l.Name+l.Password, "\"\n") {
			return nil, fmt.Errorf("userlist: login %q: no quotes or newlines", l.Name)
		}
	}
	return execute("userlist.txt.tmpl", logins)
}

func execute(name string, data any) ([]byte, error) {
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b.Bytes(), nil
}

func writeFile(dir, name string, b []byte) (string, error) {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		return "", err
	}
	return p, nil
}

var plainName = regexp.MustCompile(`^[A-Za-z0-9_]{1,63}$`)

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ports, err := FreePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// FreePorts returns n distinct ports that were free a moment ago: each
// listener is held until all are chosen, or the kernel may hand one out twice.
func FreePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func hostPort(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
