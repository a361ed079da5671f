package fleet

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Usage describes a fleet to its user, as "loadtest fleet -h" prints it.
const Usage = `Starts several replicas of a server behind one address (package
loadtest/fleet, docs/scale-out.md): a PostgreSQL role of the lab's own
(-conn-limit), PgBouncer when -pgbouncer names a mode, the replicas, each
on free ports, then HAProxy; prints their addresses and runs until Ctrl-C
(or -for), reporting a replica that exits; then stops all and drops the
role. The replica command's strings may hold {{port}}, {{admin_port}},
{{replica}}, {{dsn}} and {{dir}}, e.g.

  loadtest fleet -replicas 2 -pgbouncer transaction -- \
    go run ./cmd/bbs -db postgres -pg-exec-mode exec \
      -addr 127.0.0.1:{{port}} -admin-addr 127.0.0.1:{{admin_port}}
`

// Spec says what fleet to start. Its tagged fields are the flags of
// loadtest fleet (cli.BindFlags).
type Spec struct {
	// Replica is one replica's command; it and Env may hold Usage's placeholders.
	Replica []string
	Env     []string
	// DSNEnv keeps the database URL's password out of the replicas' arguments.
	DSNEnv string `flag:"dsn-env" default:"BBS_DSN" arg:"variable" help:"environment variable that gives each replica its database URL (empty: only {{dsn}})"`
	// Dir is the replicas' working directory ("" for this process's).
	Dir           string
	Replicas      int    `flag:"replicas" default:"2" help:"replicas to start (0: PgBouncer and the role alone)"`
	Ready         string `flag:"ready" default:"/readyz" arg:"path" help:"path on a replica's admin port that answers 200 when it is ready (HAProxy's health check too)"`
	Balance       string `flag:"balance" default:"leastconn" help:"HAProxy's balance: leastconn or roundrobin"`
	ServerMaxConn int    `flag:"maxconn" help:"HAProxy's maxconn per replica: requests beyond it wait in HAProxy's queue (0: no cap)"`
	// Fixed ports let commands typed after the start name them.
	Port        int `flag:"port" help:"HAProxy's one address: this port on 127.0.0.1 (0: a free one)"`
	MetricsPort int `flag:"metrics-port" help:"HAProxy's metrics (/metrics): this port on 127.0.0.1 (0: a free one)"`
	AdminPort   int `flag:"admin-port" help:"replica 1's {{admin_port}}, replica i's being this + i - 1 (0: free ones)"`
	// AdminDSN may create roles and databases: the fleet's are made over it.
	AdminDSN  string
	ConnLimit int `flag:"conn-limit" help:"CONNECTION LIMIT of the fleet's PostgreSQL role (0: none)"`
	// PgBouncer, when set, puts PgBouncer between the replicas and PostgreSQL.
	PgBouncer *PgBouncerSpec
	// WorkDir receives the configuration files and the logs.
	WorkDir string
	// CPUs holds every process of the fleet (pinned if Pin and allowed).
	CPUs []int
	Pin  bool
	// StartTimeout bounds each start (60s); StopTimeout SIGTERM to SIGKILL (10s).
	StartTimeout, StopTimeout time.Duration
	// OnExit is called, on another goroutine, when a process exits as it runs.
	OnExit func(error)
}

// PgBouncerSpec says how PgBouncer pools.
type PgBouncerSpec struct {
	Mode     string // "session" or "transaction"
	PoolSize int
	// CPUs overrides the fleet's: beside the database, as on its own host.
	CPUs []int
}

// A Fleet is the running replicas behind HAProxy, with PgBouncer when asked.
type Fleet struct {
	// URL is HAProxy's frontend, the one address; MetricsURL its exporter.
	URL        string
	MetricsURL string
	Replicas   []Replica  // in HAProxy's order (r1, r2, ...)
	PgBouncer  *PgBouncer // when the fleet has one
	Role       *Role
	// DSN is the URL each replica was given.
	DSN string

	spec    Spec
	procs   []*proc
	mu      sync.Mutex
	exits   []error
	stopped bool
}

// A Replica is one started replica.
type Replica struct {
	Name            string // HAProxy's server name: r1, r2, ...
	Port, AdminPort int
	URL, AdminURL   string
	Pid             int
}

// PgBouncer is the started PgBouncer.
type PgBouncer struct {
	Port     int
	Mode     string
	PoolSize int
	// AdminDSN is its admin console as its stats user.
	AdminDSN string
	Pid      int
}

// StatsUser is PgBouncer's admin console user (stats_users).
const StatsUser = "bbslab_stats"

// Start starts the fleet; on an error it stops what it started.
func Start(ctx context.Context, s Spec) (f *Fleet, err error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	f = &Fleet{spec: s}
	defer func() {
		if err != nil {
			err = errors.Join(err, f.Stop())
			f = nil
		}
	}()
	if f.Role, err = CreateRole(ctx, s.AdminDSN, s.ConnLimit); err != nil {
		return f, err
	}
	f.DSN = f.Role.DSN(f.Role.Host, f.Role.Port)
	if s.PgBouncer != nil {
		if err := f.startPgBouncer(ctx); err != nil {
			return f, err
		}
		f.DSN = f.Role.DSN("127.0.0.1", f.PgBouncer.Port)
	}
	for i := 1; i <= s.Replicas; i++ {
		if err := f.startReplica(ctx, i); err != nil {
			return f, err
		}
	}
	if s.Replicas > 0 {
		err = f.startHAProxy(ctx)
	}
	return f, err
}

func (s *Spec) check() error {
	var bad []error
	if len(s.Replica) == 0 && s.Replicas > 0 {
		bad = append(bad, errors.New("fleet: no replica command"))
	}
	if s.Replicas < 0 || s.Replicas > 64 {
		bad = append(bad, fmt.Errorf("fleet: replicas = %d: want 0..64", s.Replicas))
	}
	if s.Replicas > 0 && !strings.HasPrefix(s.Ready, "/") {
		bad = append(bad, fmt.Errorf("fleet: ready = %q: want the path of the replica's ready URL on its admin port, such as /readyz", s.Ready))
	}
	if s.Replicas > 0 && !slices.Contains(Balances, s.Balance) {
		bad = append(bad, fmt.Errorf("fleet: balance = %q: want %s", s.Balance, strings.Join(Balances, " or ")))
	}
	for _, p := range []struct {
		name       string
		first, top int
	}{{"port", s.Port, s.Port}, {"metrics port", s.MetricsPort, s.MetricsPort}, {"admin port", s.AdminPort, s.AdminPort + max(s.Replicas-1, 0)}} {
		if p.first < 0 || p.top > 65535 {
			bad = append(bad, fmt.Errorf("fleet: %s %d: want 0 (a free one) or a port up to 65535 (for every replica)", p.name, p.first))
		}
	}
	if s.AdminDSN == "" {
		bad = append(bad, errors.New("fleet: no PostgreSQL admin DSN"))
	}
	if s.WorkDir == "" {
		bad = append(bad, errors.New("fleet: no work directory"))
	} else if abs, err := filepath.Abs(s.WorkDir); err != nil {
		bad = append(bad, fmt.Errorf("fleet: work directory: %w", err))
	} else {
		// HAProxy and PgBouncer run in it: a relative path would be misread.
		s.WorkDir = abs
	}
	if s.StartTimeout <= 0 {
		s.StartTimeout = 60 * time.Second
	}
	if s.StopTimeout <= 0 {
		s.StopTimeout = 10 * time.Second
	}
	return errors.Join(bad...)
}

// startReplica starts replica i and waits until it is ready.
func (f *Fleet) startReplica(ctx context.Context, i int) error {
	ports, err := FreePorts(2)
	if err != nil {
		return err
	}
	port, admin := ports[0], f.spec.AdminPort+i-1
	if f.spec.AdminPort == 0 {
		admin = ports[1]
	}
	vars := strings.NewReplacer("{{port}}", strconv.Itoa(port), "{{admin_port}}", strconv.Itoa(admin), "{{replica}}", strconv.Itoa(i),
		"{{dsn}}", f.DSN, "{{dir}}", f.spec.WorkDir)
	argv, env := expandAll(f.spec.Replica, vars), expandAll(f.spec.Env, vars)
	if f.spec.DSNEnv != "" {
		env = append(env, f.spec.DSNEnv+"="+f.DSN)
	}
	name := fmt.Sprintf("replica %d", i)
	p, err := f.start(name, argv, env, f.spec.Dir, fmt.Sprintf("replica-%d.log", i), f.spec.CPUs)
	if err != nil {
		return err
	}
	r := Replica{Name: "r" + strconv.Itoa(i), Port: port, AdminPort: admin, URL: "http://" + hostPort(port), AdminURL: "http://" + hostPort(admin), Pid: p.Pid()}
	if err := p.waitFor(ctx, f.spec.StartTimeout, r.AdminURL+f.spec.Ready, answers200(r.AdminURL+f.spec.Ready)); err != nil {
		return err
	}
	f.Replicas = append(f.Replicas, r)
	return nil
}

// start starts one process of the fleet on cpus, watched for an exit.
func (f *Fleet) start(name string, argv, env []string, dir, logName string, cpus []int) (*proc, error) {
	p, err := start(name, argv, env, dir, filepath.Join(f.spec.WorkDir, logName), cpus, f.spec.Pin)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.procs = append(f.procs, p)
	f.mu.Unlock()
	go f.watch(p)
	return p, nil
}

// watch records p's exit unless the fleet is stopping or p is not ready.
func (f *Fleet) watch(p *proc) {
	<-p.Exited()
	f.mu.Lock()
	if f.stopped || !p.ready.Load() {
		f.mu.Unlock()
		return
	}
	err := p.exitedErr("while the fleet ran")
	f.exits = append(f.exits, err)
	f.mu.Unlock()
	if f.spec.OnExit != nil {
		f.spec.OnExit(err)
	}
}

// Pinned returns the CPUs the fleet is pinned to, or none if a process is not.
func (f *Fleet) Pinned() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.procs {
		if !p.Hold.Pinned {
			return nil
		}
	}
	return f.spec.CPUs
}

// Exits returns how each process that exited while the fleet ran did so.
func (f *Fleet) Exits() []error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]error(nil), f.exits...)
}

// Stop stops HAProxy, the replicas and PgBouncer, then drops the role. Its
// error joins Exits, processes killed and a failed drop. It may be called again.
func (f *Fleet) Stop() error {
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		return nil
	}
	f.stopped = true
	errs := append([]error(nil), f.exits...)
	procs := f.procs
	f.mu.Unlock()
	// HAProxy first, so that no request reaches a stopping replica.
	for i := len(procs) - 1; i >= 0; i-- {
		errs = append(errs, procs[i].stop(f.spec.StopTimeout))
	}
	if f.Role != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		errs = append(errs, f.Role.Drop(ctx))
		cancel()
	}
	return errors.Join(errs...)
}

func expandAll(ss []string, vars *strings.Replacer) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = vars.Replace(s)
	}
	return out
}

func portOr(port int) (int, error) {
	if port != 0 {
		return port, nil
	}
	return freePort()
}
