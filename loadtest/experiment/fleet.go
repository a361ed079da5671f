package experiment

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"bbslab/internal/child"
	"bbslab/loadtest"
	"bbslab/loadtest/fleet"
	"bbslab/loadtest/fleetwatch"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// fleetSpec is the file's [fleet], under a run's [run.fleet]: replicas of [server]'s command
// behind HAProxy, maybe behind PgBouncer (docs/scale-out.md, which lists its placeholders).
type fleetSpec struct {
	Replicas      int    `toml:"replicas"`       // 0: no fleet
	Balance       string `toml:"balance"`        // "leastconn" (the default) or "roundrobin"
	MaxConn       int    `toml:"maxconn"`        // HAProxy's cap per replica (0: none)
	PgBouncer     string `toml:"pgbouncer"`      // "off" (the default), "session" or "transaction"
	PgBouncerPool int    `toml:"pgbouncer_pool"` // its server connections (default 10)
	PgBouncerCPUs []int  `toml:"pgbouncer_cpus"` // rather than [server]'s
	// ConnLimit is the role's CONNECTION LIMIT (0 or -1: none; -1 lifts the file's).
	ConnLimit int    `toml:"conn_limit"`
	AdminDSN  string `toml:"admin_dsn"` // where the role is created and dropped
	Ready     string `toml:"ready"`     // a replica's ready path on its admin port
	DSNEnv    string `toml:"dsn_env"`   // the variable with a replica's database URL
}

// fleetOf is run's fleet, [fleet] under its own; ok when it has replicas.
func (e *Experiment) fleetOf(run runSpec) (fs fleetSpec, ok bool) {
	fs = e.Fleet
	if run.Fleet != nil {
		overlay(&fs, *run.Fleet)
	}
	fs.Balance = cmp.Or(fs.Balance, "leastconn")
	fs.PgBouncer = cmp.Or(fs.PgBouncer, "off")
	fs.PgBouncerPool = cmp.Or(fs.PgBouncerPool, 10)
	return fs, fs.Replicas > 0
}

func (e *Experiment) checkFleet() []error {
	var bad problems
	fleets := false
	for i, r := range e.Runs {
		fs, ok := e.fleetOf(r)
		if !ok {
			continue
		}
		fleets = true
		name := fmt.Sprintf("run %q: fleet", r.Name)
		if i == 0 && r.Fleet == nil {
			name = "fleet"
		}
		if fs.Replicas > 64 {
			bad.add("%s.replicas = %d: want 0..64", name, fs.Replicas)
		}
		if !slices.Contains(fleet.Balances, fs.Balance) {
			bad.add("%s.balance = %q: want %s", name, fs.Balance, strings.Join(fleet.Balances, " or "))
		}
		if !slices.Contains([]string{"off", fleet.ModeSession, fleet.ModeTransaction}, fs.PgBouncer) {
			bad.add("%s.pgbouncer = %q: want \"off\", \"session\" or \"transaction\"", name, fs.PgBouncer)
		}
		if fs.PgBouncerPool < 1 || fs.ConnLimit < -1 || fs.MaxConn < 0 {
			bad.add("%s: pgbouncer_pool must be at least 1, conn_limit -1 (none) or more, maxconn 0 or more", name)
		}
		bad.cpus(name+".pgbouncer_cpus", fs.PgBouncerCPUs)
		if fs.AdminDSN == "" || fs.Ready == "" {
			bad.add("%s: admin_dsn (the database server's admin DSN) and ready (the replica's ready path on its admin port) are needed with replicas", name)
		}
		if r.Start == startListening {
			bad.add("run %q: start = \"listening\" (a cold start) cannot be a fleet's", r.Name)
		}
	}
	if !fleets || e.Stats.URL == "" {
		return bad
	}
	if e.Stats.Format == watch.Prometheus {
		bad.add("stats.format = %q: a fleet's stats are its replicas' JSON added up: give the JSON stats URL", e.Stats.Format)
	}
	for _, s := range e.Stats.Stats {
		if s.Path == "" {
			bad.add("stats.reading %q: a fleet's stats are read from JSON: give it a path", s.Name)
		}
	}
	return bad
}

type runFleet struct {
	*fleet.Fleet
	watch    *fleetwatch.Fleet // reads the whole fleet; nil without [stats] url
	statsURL string
	target   watch.Target

	mu    sync.Mutex
	exits []string
}

// launchFleet starts run's fleet and sets its placeholders in vars.
func (x *experimentRunner) launchFleet(ctx context.Context, lr *serverRun, fs fleetSpec, argv, env []string, vars map[string]string) error {
	s := fleet.Spec{Replica: argv, Env: env, DSNEnv: fs.DSNEnv, Dir: x.e.Dir, Replicas: fs.Replicas, Ready: fs.Ready,
		Balance: fs.Balance, ServerMaxConn: fs.MaxConn, AdminDSN: fs.AdminDSN, ConnLimit: fs.ConnLimit, WorkDir: lr.dir,
		CPUs: x.e.Server.CPUs, Pin: !x.opt.NoPin,
		StartTimeout: time.Duration(x.e.Server.StartTimeout), StopTimeout: time.Duration(x.e.Server.StopTimeout)}
	if fs.PgBouncer != "off" {
		s.PgBouncer = &fleet.PgBouncerSpec{Mode: fs.PgBouncer, PoolSize: fs.PgBouncerPool, CPUs: fs.PgBouncerCPUs}
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
	var ports []string
	for _, r := range f.Replicas {
		ports = append(ports, strconv.Itoa(r.AdminPort))
	}
	vars["replica_admin_ports"] = strings.Join(ports, ",")
	lr.rr.Fleet = &outcome.FleetResult{Replicas: f.Replicas, Balance: fs.Balance, MetricsURL: f.MetricsURL, ConnLimit: max(fs.ConnLimit, 0)}
	if f.PgBouncer != nil {
		vars["pgbouncer_admin"] = f.PgBouncer.AdminDSN
		lr.rr.Fleet.PgBouncer, lr.rr.Fleet.PoolSize, lr.rr.Fleet.PgBouncerCPUs = f.PgBouncer.Mode, f.PgBouncer.PoolSize, fs.PgBouncerCPUs
	}
	x.logf("run %s: %d replica(s) ready behind %s (role %s)", lr.run.Name, len(f.Replicas), f.URL, f.Role.Name)
	if x.e.Stats.URL == "" {
		return nil
	}
	return x.watchFleet(ctx, lr, fs.AdminDSN, vars)
}

// watchFleet serves the replicas' stats as one document, given the file's readings too so
// that those in % are averaged, not added up; a first read connects before any step.
func (x *experimentRunner) watchFleet(ctx context.Context, lr *serverRun, adminDSN string, vars map[string]string) error {
	rf, t := lr.fleet, x.opt.Target
	t.Stats = append(slices.Clip(t.Stats), x.res.Stats...)
	w, err := fleetwatch.ForFleet(rf.Fleet, adminDSN, t, func(r fleet.Replica) string {
		v := maps.Clone(vars)
		v["port"], v["admin_port"] = strconv.Itoa(r.Port), strconv.Itoa(r.AdminPort)
		return expand(x.e.Stats.URL, v)
	})
	if err != nil {
		return fmt.Errorf("read the fleet: %w", err)
	}
	url, err := w.Serve()
	if err != nil {
		w.Close()
		return fmt.Errorf("read the fleet: %w", err)
	}
	rf.watch, rf.statsURL, rf.target = w, url, w.Target()
	sources, _ := w.Read(ctx)["sources"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		if src, _ := sources[name].(map[string]any); src["up"] != 1.0 {
			x.note(fmt.Sprintf("run %s: the fleet's reader could not read %s: %v", lr.run.Name, name, src["error"]))
		}
	}
	return nil
}

func (rf *runFleet) watcher(o watch.Options) (loadtest.Watcher, error) {
	o.StatsURL, o.Format = rf.statsURL, watch.JSON
	o.Stats = rf.stats(o.Stats)
	return rf.target.Watcher(o)
}

// stats are one board's stats as the fleet's document holds them, then the fleet's own.
func (rf *runFleet) stats(one []watch.Stat) []watch.Stat {
	var out []watch.Stat
	seen := map[string]bool{}
	for _, s := range one {
		if s = fleetwatch.StatOf(s); s.Path != "" {
			out = append(out, s)
			seen["name "+s.Name], seen["path "+s.Path] = true, true
		}
	}
	for _, s := range rf.watch.OwnStats() {
		if !seen["name "+s.Name] && !seen["path "+s.Path] {
			out = append(out, s)
		}
	}
	return out
}

func pgbNote(fs fleetSpec) string {
	s := ""
	if fs.PgBouncer != "off" {
		s = fmt.Sprintf(", PgBouncer %s pool %d", fs.PgBouncer, fs.PgBouncerPool)
		if len(fs.PgBouncerCPUs) > 0 {
			s += " on CPU " + child.CPUList(fs.PgBouncerCPUs)
		}
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
	if rf.watch != nil {
		rf.watch.Close()
	}
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
