package contract

import "bbslab/loadtest/watch"

// stats are the numbers of the board's /admin/stats JSON the watcher
// keeps, with their /metrics forms and how they are shown.
var stats = []watch.Stat{
	{Name: "server_cpu", Path: "machine.process_cpu.total", Kind: watch.Gauge, Scale: 1, Metric: "process_cpu_seconds_total", MetricScale: 100, Unit: "% of a core",
		Chart: "cpu", Legend: "process", Column: "srv cpu %", Format: "%.1f", Panel: PanelCPU},
	{Name: "machine_cpu_idle", Path: "machine.cpu.idle", Kind: watch.Gauge, Scale: 1, Metric: `bbs_machine_cpu_seconds_total{mode="idle"}`, Per: "bbs_machine_cpus", MetricScale: 100, Unit: "%",
		Chart: "cpu", Legend: "machine busy", Dashed: true, Complement: true, Panel: PanelCPU},
	{Name: "server_core_busy", Path: "machine.own_cpus.busy", Kind: watch.Gauge, Scale: 1, Metric: "bbs_own_cpus_busy_seconds_total", Per: "bbs_own_cpus", MetricScale: 100, Unit: "%", Legend: "server's cores busy", Panel: PanelCPU},
	interference, steal,
	{Name: "machine_cpu_user", Path: "machine.cpu.user", Kind: watch.Gauge, Scale: 1, Metric: `bbs_machine_cpu_seconds_total{mode="user"}`, Per: "bbs_machine_cpus", MetricScale: 100, Unit: "%"},
	{Name: "machine_cpu_system", Path: "machine.cpu.system", Kind: watch.Gauge, Scale: 1, Metric: `bbs_machine_cpu_seconds_total{mode="system"}`, Per: "bbs_machine_cpus", MetricScale: 100, Unit: "%"},
	{Name: "machine_cpu_iowait", Path: "machine.cpu.iowait", Kind: watch.Gauge, Scale: 1, Metric: `bbs_machine_cpu_seconds_total{mode="iowait"}`, Per: "bbs_machine_cpus", MetricScale: 100, Unit: "%"},
	// Occupancy comes from state-seconds counters: a gauge sampled inside
	// a server pinned to one core runs only when no request does.
	{Name: "workers_busy", Path: "workers.busy_seconds_total", Metric: "bbs_workers_busy_seconds_total", Kind: watch.Counter, Scale: 1, Legend: "busy", Panel: PanelWorkers},
	{Name: "workers_queued", Path: "workers.queued_seconds_total", Metric: "bbs_worker_queue_seconds_total", Kind: watch.Counter, Scale: 1, Column: "queued", Format: "%.1f", Legend: "queued", Panel: PanelWorkers},
	{Name: "worker_wait", Path: "workers.wait_seconds_total", Metric: "bbs_worker_queue_wait_seconds_sum", Kind: watch.Counter, PerRequest: true, Scale: 1000, Unit: "ms/request",
		Chart: "wait", Legend: "worker queue", Column: "worker wait ms", Format: "%.3f", Panel: PanelWaits},
	{Name: "pool_in_use", Path: "db_pool.in_use_seconds_total", Metric: "bbs_db_connections_in_use_seconds_total", Kind: watch.Counter, Scale: 1, Legend: "in use", Panel: PanelPool},
	{Name: "pool_waiting", Path: "db_pool.acquire_waiting_seconds_total", Metric: "bbs_db_acquires_waiting_seconds_total", Kind: watch.Counter, Scale: 1, Legend: "acquires waiting", Panel: PanelPool},
	{Name: "pool_wait", Path: "db_pool.acquire_wait_seconds_total", Metric: "bbs_db_acquire_wait_seconds_total", Kind: watch.Counter, PerRequest: true, Scale: 1000, Unit: "ms/request",
		Chart: "wait", Legend: "DB pool", Dashed: true, Column: "pool wait ms", Format: "%.3f", Panel: PanelWaits},
	{Name: "db_network_wait", Path: "db_pool.network_wait_seconds_total", Metric: "bbs_db_network_wait_seconds_total", Kind: watch.Counter, PerRequest: true, Scale: 1000, Unit: "ms/request", Legend: "database network", Panel: PanelWaits},
	{Name: "cpu_wait", Path: "runtime.sched_latency_seconds_total", Metric: "bbs_sched_latency_seconds_total", Kind: watch.Counter, PerRequest: true, Scale: 1000, Unit: "ms/request", Legend: "waiting for a CPU", Panel: PanelWaits},
	{Name: "pool_opened", Path: "db_pool.opened_total", Metric: "bbs_db_connects_total", Kind: watch.Counter, Scale: 1, Unit: "/s"},
	{Name: "gc_cycles", Path: "gc.cycles", Metric: "go_gc_cycles_total_gc_cycles_total", Kind: watch.Counter, Scale: 1, Unit: "/s", Legend: "GC cycles", Panel: PanelGC},
	{Name: "goroutines", Path: "goroutines", Metric: "go_goroutines", Kind: watch.Gauge, Scale: 1},
	// The board leaves out a TCP state with no socket (machine/tcp.go).
	{Name: "conn_established", Path: "connections.server.states.ESTABLISHED", Metric: `bbs_connections{side="server",state="ESTABLISHED"}`, Kind: watch.Gauge, Scale: 1, Optional: true},
	{Name: "conn_time_wait", Path: "connections.server.states.TIME_WAIT", Metric: `bbs_connections{side="server",state="TIME_WAIT"}`, Kind: watch.Gauge, Scale: 1, Optional: true},
	{Name: "conn_close_wait", Path: "connections.server.states.CLOSE_WAIT", Metric: `bbs_connections{side="server",state="CLOSE_WAIT"}`, Kind: watch.Gauge, Scale: 1, Optional: true},
	{Name: "accept_queue", Path: "connections.server.listen.accept_queue", Metric: "bbs_listen_accept_queue", Kind: watch.Gauge, Scale: 1},
}

// interference and steal are the time of the board's cores that something
// other than the board took, and the hypervisor's part of it (Linux).
var (
	interference = watch.Stat{Name: "server_interference", Path: "machine.own_cpus.interference_seconds_total", Kind: watch.Counter, Scale: 100,
		Metric: "bbs_own_cpus_interference_seconds_total", MetricScale: 100, Unit: "% of a core",
		Legend: "others on its cores", Column: "others on srv core %", Format: "%.1f", Panel: PanelCPU}
	steal = watch.Stat{Name: "server_steal", Path: "machine.own_cpus.steal_seconds_total", Kind: watch.Counter, Scale: 100,
		Metric: "bbs_own_cpus_steal_seconds_total", MetricScale: 100, Unit: "% of a core",
		Legend: "steal on its cores", Panel: PanelCPU}
)

// charts are the sweep's server charts the stats' Chart fields name.
var charts = []watch.Chart{
	{Name: "cpu", Title: "Server CPU", YLabel: "% (process: of one core; machine: of all CPUs)"},
	{Name: "wait", Title: "Server waits per request", YLabel: "ms / request"},
}
