package resultfile

import (
	"encoding/csv"
	"io"
	"strconv"

	"bbslab/loadtest"
)

// WriteSeriesCSV writes the per-second series as CSV with a header line.
func WriteSeriesCSV(w io.Writer, series []loadtest.SecondRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"t", "warmup", "successes", "errors", "throughput", "bytes", "mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, r := range series {
		cw.Write([]string{f(r.T), strconv.FormatBool(r.Warmup), strconv.FormatInt(r.Successes, 10), strconv.FormatInt(r.Errors, 10),
			f(r.Throughput), strconv.FormatInt(r.Bytes, 10), f(r.MeanMs), f(r.P50Ms), f(r.P90Ms), f(r.P95Ms), f(r.P99Ms), f(r.MaxMs)})
	}
	cw.Flush()
	return cw.Error()
}
