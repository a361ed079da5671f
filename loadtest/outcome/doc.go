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
// A Result holds one Run per server configuration, a Point per client
// count, and every measurement of a point as a Repeat; a point's figures
// are taken over the repeats it uses. The runner fills a Result, package
// claim decides claims from it and package report writes it out.
package outcome
