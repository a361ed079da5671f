package contract

import "bbslab/commands"

// each names the stats a fleet shows per replica beside their sum: means over
// the second; a wait per request would need all replicas' counts at once.
var each = []string{"server_cpu", "workers_busy", "workers_queued", "pool_in_use", "pool_waiting"}

// requestPaths are the counters summing to the requests a board answered.
func requestPaths() []string {
	out := make([]string, 0, len(commands.Views))
	for _, v := range commands.Views {
		out = append(out, "commands."+v.Name()+".requests")
	}
	return out
}
