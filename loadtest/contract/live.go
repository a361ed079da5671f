package contract

import (
	"fmt"
	"strings"

	"bbslab/loadtest/watch"
)

// The live dashboard's server panels, which the stats' Panel fields name.
// State-seconds counters (workers, pool) read as the mean number in the
// state over the second.
const (
	PanelCPU     = "CPU, %"
	PanelWorkers = "Workers: mean busy and queued"
	PanelPool    = "DB pool: mean connections in use and acquires waiting"
	PanelWaits   = "Waits per request, ms"
	PanelGC      = "GC cycles per second"
)

// doing are the states of the board's requests that the live dashboard
// stacks as "what requests are doing now", in that order: each is the
// increase per second of a state-seconds counter of /admin/stats, so the
// mean number of requests in the state over the second (Little's law).
// A request waits in the worker queue, then holds a worker; while holding
// it, it may wait for a connection, then run SQL; the rest of the held
// time is "elsewhere" (parsing, rendering, writing), busy minus both.
//
// The time in SQL is added when each request ends (the commands count it
// then), so the seconds of a very long statement all land in the second
// its request ends in, and "elsewhere" is then understated in the
// seconds before (clamped at 0) and overstated never. /metrics has no
// counter of the seconds in SQL: read from Prometheus, "in SQL" is absent
// and "elsewhere" includes it.
var doing = []watch.State{
	{Name: "waiting for a worker", Path: "workers.queued_seconds_total", Metric: "bbs_worker_queue_seconds_total"},
	{Name: "waiting for a connection", Path: "db_pool.acquire_waiting_seconds_total", Metric: "bbs_db_acquires_waiting_seconds_total"},
	{Name: "in SQL", Path: "db_pool.sql_seconds_total"},
	{Name: "elsewhere", Path: "workers.busy_seconds_total", Metric: "bbs_workers_busy_seconds_total", Minus: []string{"waiting for a connection", "in SQL"}},
}

// Thresholds of limiting: the server's cores count as saturated from 90 %
// busy; a queue or a pool wait counts from a mean of 0.01 requests over
// the step (one request waiting 1 % of the time), below which it is noise.
const (
	saturatedCPU = 90.0
	someWaiting  = 0.01
)

// limiting names what limited the board at one step, from the step's
// stats keyed by their /admin/stats path (so that an experiment file's
// own stat names work too): its cores busy (machine.own_cpus.busy >=
// 90 %), every worker busy with requests queued (the mean of
// workers.queued_seconds_total's rate > 0: the queue grows only when all
// workers are busy), the pool empty with acquires waiting (the mean of
// db_pool.acquire_waiting_seconds_total's rate > 0); several are joined
// with ", ", and none is "-".
func limiting(byPath map[string]float64) string {
	var out []string
	if v, ok := byPath["machine.own_cpus.busy"]; ok && v >= saturatedCPU {
		out = append(out, fmt.Sprintf("cores %.0f%% busy", v))
	}
	if v, ok := byPath["workers.queued_seconds_total"]; ok && v > someWaiting {
		out = append(out, fmt.Sprintf("workers full, %.1f queued", v))
	}
	if v, ok := byPath["db_pool.acquire_waiting_seconds_total"]; ok && v > someWaiting {
		out = append(out, fmt.Sprintf("pool empty, %.1f waiting", v))
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}
