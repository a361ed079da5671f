package fleetwatch

import (
	"strings"
	"testing"

	"bbslab/loadtest/watch"
)

// TestTarget builds the fleet's target from a small one-board target:
// its stats from the sum (interference and steal left out), the Each
// stats for each replica, the requests, the readers' stats only for the
// readers set, the states from the sum, and a Limiting that reads the
// sum and the proxy's queue.
func TestTarget(t *testing.T) {
	inter := watch.Stat{Name: "inter", Path: "machine.inter", Kind: watch.Counter, Unit: "% of a core"}
	one := watch.Target{
		Stats: []watch.Stat{
			{Name: "busy", Path: "workers.busy_seconds_total", Metric: "bbs_busy", Kind: watch.Counter, Legend: "busy", Panel: "Workers", Column: "busy"},
			{Name: "idle", Path: "machine.cpu.idle", Kind: watch.Gauge, Unit: "%", Panel: "CPU"},
			inter,
		},
		Interference: inter,
		States:       []watch.State{{Name: "queued", Path: "workers.queued_seconds_total", Metric: "bbs_q"}},
		Each:         []string{"busy"},
		RequestPaths: []string{"commands.A.requests"},
		Limiting: func(m map[string]float64) string {
			if m["workers.busy_seconds_total"] > 1 {
				return "busy"
			}
			return "-"
		},
	}
	f, err := New(Options{Target: one, HAProxyURL: "http://127.0.0.1:1/metrics",
		Replicas: []Replica{{Name: "r1", StatsURL: "http://127.0.0.1:1/"}, {Name: "r2", StatsURL: "http://127.0.0.1:2/"}}})
	if err != nil {
		t.Fatal(err)
	}
	tg := f.Target()
	by := map[string]watch.Stat{}
	for _, s := range tg.Stats {
		if err := s.Check(); err != nil {
			t.Error(err)
		}
		by[s.Name] = s
	}
	if s := by["busy"]; s.Path != "sum.workers.busy_seconds_total" || s.Metric != "" || s.Panel != "Workers" || s.Column != "busy" {
		t.Errorf("busy = %+v; want the sum's path, no metric, its panel and column", s)
	}
	if s := by["busy_r2"]; s.Path != "replicas.r2.workers.busy_seconds_total" || s.Panel != "Each replica: Workers" || s.Legend != "r2 busy" || s.Column != "" {
		t.Errorf("busy_r2 = %+v; want r2's path on the each-replica panel", s)
	}
	if _, ok := by["inter"]; ok || tg.Interference.Name != "" {
		t.Errorf("the fleet has the interference stat (%v) or target (%q); want neither", ok, tg.Interference.Name)
	}
	for _, name := range []string{"requests", "requests_r1", "requests_r2", "proxy_queue", "proxy_sessions_r1", "proxy_requests"} {
		if _, ok := by[name]; !ok {
			t.Errorf("no stat %s", name)
		}
	}
	for name := range by {
		if strings.HasPrefix(name, "pooler_") || strings.HasPrefix(name, "db_") {
			t.Errorf("stat %s without a PgBouncer or PostgreSQL reader", name)
		}
	}
	if len(tg.Charts) != 1 || tg.Charts[0].Name != "fleet-wait" || by["proxy_queue"].Chart != "fleet-wait" {
		t.Errorf("charts %+v, proxy_queue's chart %q; want the fleet's wait chart", tg.Charts, by["proxy_queue"].Chart)
	}
	if len(tg.States) != 1 || tg.States[0].Path != "sum.workers.queued_seconds_total" || tg.States[0].Metric != "" {
		t.Errorf("states = %+v; want the sum's", tg.States)
	}
	for _, tt := range []struct {
		in   map[string]float64
		want string
	}{
		{map[string]float64{"sum.workers.busy_seconds_total": 0.5}, "-"},
		{map[string]float64{"sum.workers.busy_seconds_total": 2}, "busy"},
		{map[string]float64{"sum.workers.busy_seconds_total": 2, "haproxy.backend.current_queue": 3, "pgbouncer.pools.cl_waiting": 1.5}, "busy, proxy queue 3.0, pooler 1.5 waiting"},
	} {
		if got := tg.Limiting(tt.in); got != tt.want {
			t.Errorf("Limiting(%v) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestNewRefuses checks the options New refuses.
func TestNewRefuses(t *testing.T) {
	for _, o := range []Options{
		{},
		{Replicas: []Replica{{Name: "r1"}}},
		{Replicas: []Replica{{Name: "r.1", StatsURL: "u"}}},
		{Replicas: []Replica{{Name: "r1", StatsURL: "u"}, {Name: "r1", StatsURL: "v"}}},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) = nil error; want one", o)
		}
	}
}
