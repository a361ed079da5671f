package contract

import "bbslab/commands"

// each names the stats a fleet of boards shows for each replica beside
// their sum: means over the second, which read alike for both. A wait per
// request would need each replica's request count at the same instant.
var each = []string{"server_cpu", "workers_busy", "workers_queued", "pool_in_use", "pool_waiting"}

// requestPaths are the counters whose sum is the requests a board has
// answered.
func requestPaths() []string {
	out := make([]string, 0, len(commands.Views))
	for _, v := range commands.Views {
		out = append(out, "commands."+v.Name()+".requests")
	}
	return out
}
