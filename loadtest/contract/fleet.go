package contract

import "bbslab/commands"

// each names the stats a fleet of boards (replicas behind a proxy,
// package loadtest/fleetwatch) shows for each replica beside their sum:
// its CPU, its workers busy and queued, its connections in use and its
// acquires waiting. Each is a mean number over the second (or a CPU
// share), so that a replica's figure and the sum read the same way; the
// waits per request are the whole fleet's only (a replica's per-request
// figure would need its own request count at the same instant).
var each = []string{"server_cpu", "workers_busy", "workers_queued", "pool_in_use", "pool_waiting"}

// requestPaths are the counters of /admin/stats whose sum is the requests
// a board has answered: one per command (commands.<name>.requests).
func requestPaths() []string {
	out := make([]string, 0, len(commands.Views))
	for _, v := range commands.Views {
		out = append(out, "commands."+v.Name()+".requests")
	}
	return out
}
