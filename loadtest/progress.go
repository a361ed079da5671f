package loadtest

import "fmt"

// progress rewrites the live progress line (elapsed time, last second's
// rate and p99, errors so far) in place with a carriage return. The
// Settings.Progress writer is meant for a terminal; commands leave it nil
// otherwise so that logs stay clean.
func (r *runner) progress(series []SecondRow) {
	last := series[len(series)-1]
	var errs int64
	for _, s := range series {
		errs += s.Errors
	}
	phase := ""
	if last.Warmup {
		phase = " (warm-up)"
	}
	fmt.Fprintf(r.s.Progress, "\r%6.0fs  %8.1f req/s  p99 %8.3f ms  errors %d%s   ", last.T, last.Throughput, last.P99Ms, errs, phase)
}
