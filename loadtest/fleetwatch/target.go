package fleetwatch

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"bbslab/loadtest/watch"
)

// The dashboard's panels of a fleet, besides the one-board target's own.
const (
	PanelRequests      = "Requests/s: each replica, their sum, the proxy's"
	PanelProxyQueue    = "HAProxy: queue at the proxy"
	PanelProxySessions = "HAProxy: connections per replica"
	PanelProxyErrors   = "HAProxy: retries, redispatches, errors /s"
	PanelPoolerClients = "PgBouncer: clients served and waiting"
	PanelPoolerServers = "PgBouncer: server connections"
	PanelDBBackends    = "PostgreSQL: backends and the limit"
	PanelDBOpened      = "PostgreSQL: connections opened /s"
)

// Target returns the fleet as one watch.Target for Serve's URL: the one-board
// stats read from the replicas' sum, plus OwnStats. A step is limited by the
// sum's limit, then the proxy's queue and the pooler's waiting clients. It
// has Interference and Steal only when the replicas share their cores: on
// cores of their own no figure says what took the fleet's.
func (f *Fleet) Target() watch.Target {
	t := f.o.Target
	out := watch.Target{
		StatsPath: "/", Charts: t.Charts, EnvironmentKeys: t.EnvironmentKeys,
		Validate: t.Validate, StartHint: t.StartHint, Disk: t.Disk,
		ProcessCPU: sumStat(t.ProcessCPU),
	}
	cores := f.coresRead()
	if cores {
		out.Interference, out.Steal = sumStat(t.Interference), sumStat(t.Steal)
	}
	for _, s := range t.Stats {
		if s.Path != "" && (cores || s.Name != t.Interference.Name && s.Name != t.Steal.Name) {
			out.Stats = append(out.Stats, sumStat(s))
		}
	}
	for _, st := range t.States {
		if st.Path != "" {
			out.States = append(out.States, watch.State{Name: st.Name, Path: "sum." + st.Path, Minus: st.Minus})
		}
	}
	out.Stats = append(out.Stats, f.OwnStats()...)
	if f.o.HAProxyURL != "" || f.pgb != nil {
		out.Charts = append(append([]watch.Chart(nil), t.Charts...), waitChart)
	}
	limiting := t.Limiting
	out.Limiting = func(byPath map[string]float64) string {
		var parts []string
		if limiting != nil {
			sum := map[string]float64{}
			for p, v := range byPath {
				if rest, ok := strings.CutPrefix(p, "sum."); ok {
					sum[rest] = v
				}
			}
			if s := limiting(sum); s != "-" && s != "" {
				parts = append(parts, s)
			}
		}
		if v := byPath["haproxy.backend.current_queue"]; v > someWaiting {
			parts = append(parts, fmt.Sprintf("proxy queue %.1f", v))
		}
		if v := byPath["pgbouncer.pools.cl_waiting"]; v > someWaiting {
			parts = append(parts, fmt.Sprintf("pooler %.1f waiting", v))
		}
		if len(parts) == 0 {
			return "-"
		}
		return strings.Join(parts, ", ")
	}
	return out
}

// waitChart is the sweep's chart of the waits outside the boards.
var waitChart = watch.Chart{Name: "fleet-wait", Title: "Waiting at the proxy and in the pooler", YLabel: "mean requests (proxy) or clients (pooler) waiting"}

// someWaiting is the mean waiting over a step from which a queue limits.
const someWaiting = 0.01

// sumStat is a one-board stat read from the replicas' sum.
func sumStat(s watch.Stat) watch.Stat {
	if s.Path == "" {
		return watch.Stat{}
	}
	s.Path = "sum." + s.Path
	s.Metric, s.Per, s.Quantile, s.MetricScale = "", "", 0, 0
	return s
}

// sections are the top-level keys of the fleet's document.
var sections = []string{"replicas", "sum", "fleet", "haproxy", "pgbouncer", "postgres", "sources"}

// StatOf returns one board's stat as read from the replicas' sum, as it is
// when its path begins with a section; no path gives the zero Stat.
func StatOf(s watch.Stat) watch.Stat {
	head, _, _ := strings.Cut(s.Path, ".")
	if s.Path == "" || !slices.Contains(sections, head) {
		return sumStat(s)
	}
	s.Metric, s.Per, s.Quantile, s.MetricScale = "", "", 0, 0
	return s
}

// OwnStats are the fleet's stats beyond one board's: each replica's requests
// and Each stats, and the readers' readings.
func (f *Fleet) OwnStats() []watch.Stat {
	return append(f.eachStats(), f.sourceStats()...)
}

func (f *Fleet) eachStats() []watch.Stat {
	t := f.o.Target
	var out []watch.Stat
	if len(t.RequestPaths) > 0 {
		for _, r := range f.o.Replicas {
			out = append(out, watch.Stat{Name: "requests_" + r.Name, Path: "replicas." + r.Name + ".requests_total", Kind: watch.Counter, Scale: 1,
				Unit: "req/s", Legend: r.Name, Panel: PanelRequests})
		}
		out = append(out, watch.Stat{Name: "requests", Path: "sum.requests_total", Kind: watch.Counter, Scale: 1,
			Unit: "req/s", Legend: "sum", Panel: PanelRequests, Dashed: true})
	}
	byName := map[string]watch.Stat{}
	for _, s := range t.Stats {
		byName[s.Name] = s
	}
	for _, name := range t.Each {
		s, ok := byName[name]
		if !ok || s.Path == "" {
			continue
		}
		for _, r := range f.o.Replicas {
			e := s
			e.Name = s.Name + "_" + r.Name
			e.Path = "replicas." + r.Name + "." + s.Path
			e.Metric, e.Per, e.Quantile, e.MetricScale = "", "", 0, 0
			e.Legend = r.Name + " " + label(s)
			e.Panel = "Each replica: " + cmp.Or(s.Panel, label(s))
			e.Chart, e.Column, e.Dashed = "", "", false
			out = append(out, e)
		}
	}
	return out
}

func label(s watch.Stat) string { return cmp.Or(s.Legend, s.Name) }

// sourceStats are the readings of the readers the options set.
func (f *Fleet) sourceStats() []watch.Stat {
	stat := func(kind string) func(name, path, unit, legend, panel string) watch.Stat {
		return func(name, path, unit, legend, panel string) watch.Stat {
			return watch.Stat{Name: name, Path: path, Kind: kind, Scale: 1, Unit: unit, Legend: legend, Panel: panel}
		}
	}
	g, c := stat(watch.Gauge), stat(watch.Counter)
	var out []watch.Stat
	if f.o.HAProxyURL != "" {
		q := g("proxy_queue", "haproxy.backend.current_queue", "requests", "queued now", PanelProxyQueue)
		q.Column, q.Format, q.Chart = "proxy queue", "%.1f", waitChart.Name
		mq := g("proxy_queue_max", "haproxy.backend.max_queue", "requests", "most queued since start", PanelProxyQueue)
		mq.Dashed = true
		out = append(out, q, mq,
			c("proxy_requests", "haproxy.backend.responses_all_total", "req/s", "proxy", PanelRequests),
			g("proxy_sessions", "haproxy.backend.current_sessions", "connections", "backend (queued included)", PanelProxySessions))
		for _, r := range f.o.Replicas {
			out = append(out, g("proxy_sessions_"+r.Name, "haproxy.servers."+r.Name+".current_sessions", "connections", r.Name, PanelProxySessions))
		}
		out = append(out,
			c("proxy_retries", "haproxy.backend.retries_total", "/s", "retries", PanelProxyErrors),
			c("proxy_redispatches", "haproxy.backend.redispatches_total", "/s", "redispatches", PanelProxyErrors),
			c("proxy_connection_errors", "haproxy.backend.connection_errors_total", "/s", "connection errors", PanelProxyErrors),
			c("proxy_5xx", "haproxy.backend.responses_total.5xx", "/s", "5xx responses", PanelProxyErrors))
	}
	if f.pgb != nil {
		// Not drawn: up to 30 per request would flatten the requests' lines.
		xacts := c("pooler_xacts", "pgbouncer.stats.xact_total", "xact/s", "pooler transactions", "")
		xacts.Column, xacts.Format = "pgb xact/s", "%.0f"
		w := g("pooler_waiting", "pgbouncer.pools.cl_waiting", "clients", "waiting now", PanelPoolerClients)
		poolerWait := c("pooler_wait", "pgbouncer.stats.wait_seconds_total", "clients", "waiting (mean)", PanelPoolerClients)
		poolerWait.Chart, poolerWait.Dashed = waitChart.Name, true
		w.Column, w.Format = "pgb waiting", "%.1f"
		out = append(out,
			g("pooler_active", "pgbouncer.pools.cl_active", "clients", "linked to a server", PanelPoolerClients), w,
			poolerWait,
			g("pooler_maxwait", "pgbouncer.pools.maxwait_seconds", "s", "longest wait now", PanelPoolerClients),
			g("pooler_sv_active", "pgbouncer.pools.sv_active", "connections", "active", PanelPoolerServers),
			g("pooler_sv_idle", "pgbouncer.pools.sv_idle", "connections", "idle", PanelPoolerServers),
			g("pooler_sv_used", "pgbouncer.pools.sv_used", "connections", "used", PanelPoolerServers),
			g("pooler_sv_login", "pgbouncer.pools.sv_login", "connections", "logging in", PanelPoolerServers),
			xacts)
	}
	if f.pg != nil {
		total := g("db_backends", "postgres.total", "backends", "watched, all states", PanelDBBackends)
		total.Column, total.Format = "pg backends", "%.1f"
		// PostgreSQL 14 and later count sessions: absent before, not 0.
		opened := c("db_opened", "postgres.sessions_total", "/s", "opened", PanelDBOpened)
		opened.Column, opened.Format, opened.Optional = "pg conn/s", "%.1f", true
		maxc := g("db_max_connections", "postgres.max_connections", "backends", "max_connections", PanelDBBackends)
		maxc.Dashed = true
		if f.o.Role != "" {
			// The role's limit binds first; max_connections would squash the panel.
			maxc.Panel = ""
		}
		out = append(out,
			g("db_active", "postgres.backends.active", "backends", "active", PanelDBBackends),
			g("db_idle", "postgres.backends.idle", "backends", "idle", PanelDBBackends),
			g("db_idle_in_xact", "postgres.backends.idle_in_transaction", "backends", "idle in transaction", PanelDBBackends),
			total, g("db_server_backends", "postgres.server_backends", "backends", "server, all clients", PanelDBBackends), maxc)
		if f.o.Role != "" {
			rl := g("db_role_limit", "postgres.role_limit", "backends", "role's limit", PanelDBBackends)
			rl.Dashed = true
			out = append(out, rl)
		}
		out = append(out, opened)
	}
	return out
}
