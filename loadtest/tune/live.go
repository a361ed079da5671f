package tune

import (
	"fmt"

	"bbslab/loadtest/live"
)

// LivePoint is a step as the live dashboard draws it on path (e.g.
// "page from 5/5"): its setting, figures, limit, decision and the best
// so far.
func LivePoint(path string, st Step) live.TunePoint {
	dec := st.Decision
	if st.Next != nil {
		dec = fmt.Sprintf("%s (%s)", short(*st.Next), st.Decision)
	}
	return live.TunePoint{Path: path, N: st.N, Workers: st.Knobs.Workers, Pool: st.Knobs.Pool, Throughput: st.Throughput.Median,
		P99: st.Latency.Median, Limit: string(st.Diagnosis.Limit), Decision: dec, BestWorkers: st.Best.Workers, BestPool: st.Best.Pool,
		Requests: st.Requests, Errors: st.Errors}
}
