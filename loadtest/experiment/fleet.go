package experiment

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"bbslab/loadtest/fleet"
)

// fleetSpec is the file's [fleet] table, and a run's [run.fleet], whose
// keys that are set replace the file's: several replicas of [server]'s
// command behind HAProxy, on a database role of the lab's own, with
// PgBouncer between them when asked (package fleet, docs/scale-out.md).
// In a run with replicas, {{port}} is HAProxy's (the one address the load
// goes to), {{admin_port}} the first replica's (its stats, reset and
// ready URLs; the replicas share one database), {{replica_admin_ports}}
// every replica's, comma-separated, {{haproxy_metrics}} HAProxy's
// Prometheus exporter, {{pg_role}} the fleet's database role (and
// database) and {{pgbouncer_admin}} PgBouncer's admin console DSN.
type fleetSpec struct {
	// Replicas is how many replicas to start; 0: no fleet, [server]'s
	// command alone as in every other experiment.
	Replicas int `toml:"replicas"`
	// Balance is HAProxy's: "leastconn" (the default) or "roundrobin".
	Balance string `toml:"balance"`
	// MaxConn caps the requests HAProxy sends one replica at once (0: no cap).
	MaxConn int `toml:"maxconn"`
	// PgBouncer is "off" (the default), "session" or "transaction";
	// PgBouncerPool its server connections (default 10).
	PgBouncer     string `toml:"pgbouncer"`
	PgBouncerPool int    `toml:"pgbouncer_pool"`
	// ConnLimit is the CONNECTION LIMIT of the fleet's role (0: none;
	// -1, none either, for a run to lift the file's).
	ConnLimit int `toml:"conn_limit"`
	// AdminDSN is the database server's admin DSN, which the role is
	// created and dropped over.
	AdminDSN string `toml:"admin_dsn"`
	// Ready is the path of a replica's ready URL on its admin port (and
	// HAProxy's health check); DSNEnv the environment variable that
	// carries each replica's database URL.
	Ready  string `toml:"ready"`
	DSNEnv string `toml:"dsn_env"`
}

// fleetOf is run's fleet: the file's [fleet] with the run's own keys over
// it; ok is false when it has no replicas.
func (e *Experiment) fleetOf(run runSpec) (fs fleetSpec, ok bool) {
	fs = e.Fleet
	if run.Fleet != nil {
		dst, src := reflect.ValueOf(&fs).Elem(), reflect.ValueOf(*run.Fleet)
		for i := range src.NumField() {
			if f := src.Field(i); !f.IsZero() {
				dst.Field(i).Set(f)
			}
		}
	}
	if fs.Balance == "" {
		fs.Balance = "leastconn"
	}
	if fs.PgBouncer == "" {
		fs.PgBouncer = "off"
	}
	if fs.PgBouncerPool == 0 {
		fs.PgBouncerPool = 10
	}
	return fs, fs.Replicas > 0
}

// checkFleet checks [fleet] and each run's.
func (e *Experiment) checkFleet() []error {
	var bad problems
	for i, r := range e.Runs {
		fs, ok := e.fleetOf(r)
		if !ok {
			continue
		}
		name := fmt.Sprintf("run %q: fleet", r.Name)
		if i == 0 && r.Fleet == nil {
			name = "fleet"
		}
		if fs.Replicas > 64 {
			bad.add("%s.replicas = %d: want 0..64", name, fs.Replicas)
		}
		if !oneOf(fs.Balance, fleet.Balances...) {
			bad.add("%s.balance = %q: want %s", name, fs.Balance, strings.Join(fleet.Balances, " or "))
		}
		if !oneOf(fs.PgBouncer, "off", fleet.ModeSession, fleet.ModeTransaction) {
			bad.add("%s.pgbouncer = %q: want \"off\", \"session\" or \"transaction\"", name, fs.PgBouncer)
		}
		if fs.PgBouncerPool < 1 || fs.ConnLimit < -1 || fs.MaxConn < 0 {
			bad.add("%s: pgbouncer_pool must be at least 1, conn_limit -1 (none) or more, maxconn 0 or more", name)
		}
		if fs.AdminDSN == "" || fs.Ready == "" {
			bad.add("%s: admin_dsn (the database server's admin DSN) and ready (the replica's ready path on its admin port) are needed with replicas", name)
		}
		if r.Start == startListening {
			bad.add("run %q: start = \"listening\" (a cold start) cannot be a fleet's", r.Name)
		}
	}
	return bad
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// fleetResult is what a run's fleet was, in the result.
type fleetResult struct {
	Replicas   []fleet.Replica `json:"replicas"`
	Balance    string          `json:"balance"`
	MetricsURL string          `json:"haproxy_metrics"`
	PgBouncer  string          `json:"pgbouncer,omitempty"`
	PoolSize   int             `json:"pgbouncer_pool,omitempty"`
	ConnLimit  int             `json:"conn_limit,omitempty"`
	// Exits are the processes that exited while the run measured.
	Exits []string `json:"exits,omitempty"`
}

// runFleet is a run's started fleet and the exits it reported.
type runFleet struct {
	*fleet.Fleet
	mu    sync.Mutex
	exits []string
}

// launchFleet starts run's fleet of [server]'s command argv and env (their
// {{port}} and {{admin_port}} left for each replica), then sets vars'
// port, admin_port and haproxy_metrics to the fleet's.
func (x *experimentRunner) launchFleet(ctx context.Context, lr *serverRun, fs fleetSpec, argv, env []string, vars map[string]string) error {
	s := fleet.Spec{Replica: argv, Env: env, DSNEnv: fs.DSNEnv, Dir: x.e.Dir, Replicas: fs.Replicas, Ready: fs.Ready,
		Balance: fs.Balance, ServerMaxConn: fs.MaxConn, AdminDSN: fs.AdminDSN, ConnLimit: fs.ConnLimit, WorkDir: lr.dir,
		CPUs: x.e.Server.CPUs, Pin: !x.opt.NoPin,
		StartTimeout: time.Duration(x.e.Server.StartTimeout), StopTimeout: time.Duration(x.e.Server.StopTimeout)}
	if fs.PgBouncer != "off" {
		s.PgBouncer = &fleet.PgBouncerSpec{Mode: fs.PgBouncer, PoolSize: fs.PgBouncerPool}
	}
	rf := &runFleet{}
	s.OnExit = func(err error) {
		x.logf("run %s: %v", lr.run.Name, err)
		rf.mu.Lock()
		rf.exits = append(rf.exits, err.Error())
		rf.mu.Unlock()
	}
	x.logf("run %s: starting %d replica(s) behind HAProxy (%s)%s", lr.run.Name, fs.Replicas, fs.Balance, pgbNote(fs))
	f, err := fleet.Start(ctx, s)
	if err != nil {
		return err
	}
	rf.Fleet, lr.fleet = f, rf
	vars["port"] = strings.TrimPrefix(f.URL, "http://127.0.0.1:")
	vars["admin_port"] = strconv.Itoa(f.Replicas[0].AdminPort)
	vars["haproxy_metrics"] = f.MetricsURL
	vars["pg_role"] = f.Role.Name
	ports := make([]string, len(f.Replicas))
	for i, r := range f.Replicas {
		ports[i] = strconv.Itoa(r.AdminPort)
	}
	vars["replica_admin_ports"] = strings.Join(ports, ",")
	if f.PgBouncer != nil {
		vars["pgbouncer_admin"] = f.PgBouncer.AdminDSN
	}
	lr.rr.Fleet = &fleetResult{Replicas: f.Replicas, Balance: fs.Balance, MetricsURL: f.MetricsURL, ConnLimit: max(fs.ConnLimit, 0)}
	if f.PgBouncer != nil {
		lr.rr.Fleet.PgBouncer, lr.rr.Fleet.PoolSize = f.PgBouncer.Mode, f.PgBouncer.PoolSize
	}
	x.logf("run %s: %d replica(s) ready behind %s (role %s)", lr.run.Name, len(f.Replicas), f.URL, f.Role.Name)
	return nil
}

func pgbNote(fs fleetSpec) string {
	s := ""
	if fs.PgBouncer != "off" {
		s = fmt.Sprintf(", PgBouncer %s pool %d", fs.PgBouncer, fs.PgBouncerPool)
	}
	if fs.ConnLimit > 0 {
		s += fmt.Sprintf(", database role of CONNECTION LIMIT %d", fs.ConnLimit)
	}
	return s
}

// stopFleet stops lr's fleet, noting every process that exited while it ran.
func (x *experimentRunner) stopFleet(lr *serverRun) {
	rf := lr.fleet
	lr.fleet = nil
	err := rf.Stop()
	rf.mu.Lock()
	exits := rf.exits
	rf.mu.Unlock()
	if lr.rr.Fleet != nil {
		lr.rr.Fleet.Exits = exits
	}
	for _, e := range exits {
		x.note(fmt.Sprintf("run %s: a process of its fleet exited while it ran: %s", lr.run.Name, strings.TrimSuffix(firstLine(e), ":")))
	}
	if err != nil {
		x.logf("run %s: stopping its fleet: %v", lr.run.Name, err)
	}
}
