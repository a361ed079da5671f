package contract

import (
	"fmt"
	"strings"

	"bbslab/loadtest/watch"
)

// The live dashboard's server panels, which the stats' Panel fields name.
const (
	PanelCPU     = "CPU, %"
	PanelWorkers = "Workers: mean busy and queued"
	PanelPool    = "DB pool: mean connections in use and acquires waiting"
	PanelWaits   = "Waits per request, ms"
	PanelGC      = "GC cycles per second"
)

// doing are the request states the live dashboard stacks, each the rate of a
// state-seconds counter, so the mean requests in the state (Little's law).
// "elsewhere" is the worker's held time less the other two: understated
// (clamped at 0) before a long statement ends, as SQL time counts when a
// request ends; from /metrics, which has no SQL counter, it includes SQL.
var doing = []watch.State{
	{Name: "waiting for a worker", Path: "workers.queued_seconds_total", Metric: "bbs_worker_queue_seconds_total"},
	{Name: "waiting for a connection", Path: "db_pool.acquire_waiting_seconds_total", Metric: "bbs_db_acquires_waiting_seconds_total"},
	{Name: "in SQL", Path: "db_pool.sql_seconds_total"},
	{Name: "elsewhere", Path: "workers.busy_seconds_total", Metric: "bbs_workers_busy_seconds_total", Minus: []string{"waiting for a connection", "in SQL"}},
}

// Thresholds of limiting: below someWaiting (one request waiting 1 % of
// the time) a queue is noise.
const (
	saturatedCPU = 90.0
	someWaiting  = 0.01
)

// limiting names what limited the board at a step, or "-", from stats keyed
// by path so that an experiment file's own stat names work too.
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
