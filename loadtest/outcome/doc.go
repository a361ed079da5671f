// Package outcome holds what an experiment measured and decided, as
// written to its experiment.json and read back:
//
//	var res outcome.Result
//	err := json.Unmarshal(b, &res)
//	for _, r := range res.Runs {
//		for _, p := range r.Points {
//			tput := p.Throughput() // median and range over the used repeats
//		}
//	}
//
// A Result holds a Run per server configuration, a Point per client count
// and each measurement as a Repeat; a point's figures are over its used ones.
package outcome
