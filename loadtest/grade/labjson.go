package grade

import (
	"bbslab/truth"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/resultfile"
)

// isLab recognises this lab's JSON run or sweep.
func isLab(b []byte) bool {
	var head struct {
		Schema *int   `json:"schema"`
		Kind   string `json:"kind"`
	}
	return json.Unmarshal(b, &head) == nil && head.Schema != nil && (head.Kind == "run" || head.Kind == "sweep")
}

// readLab reads a run or a sweep (resultfile.Read): one report per run.
func readLab(path string, _ []byte) ([]*Report, error) {
	runs, err := resultfile.Read(path)
	if err != nil {
		return nil, err
	}
	var out []*Report
	for i, run := range runs {
		name := path
		if len(runs) > 1 {
			name = fmt.Sprintf("%s[%d clients]", path, run.Settings.Clients)
			if run.Settings.Clients == 0 {
				name = fmt.Sprintf("%s[%d]", path, i)
			}
		}
		out = append(out, labReport(name, run))
	}
	return out, nil
}

// noResponse are the lab's error kinds without an HTTP status.
var noResponse = []string{"connect", "timeout", "io", "cutoff"}

// Lab grades one run of this lab's engine against the truth of its window.
func Lab(run *loadtest.Result, t *Truth) *Grading {
	return gradeReport(labReport(run.Name, run), t)
}

// labReport turns a run into a report over its measured window, the tail from its histogram.
func labReport(name string, run *loadtest.Result) *Report {
	t := run.Total
	r := &Report{
		Name: name, Format: "loadtest",
		Start: run.MeasureStart, End: run.End, Span: run.End.Sub(run.MeasureStart),
		Sent: t.Requests, Responses: t.Requests,
		Lat:        Percentiles{P50: t.P50Ms, P90: t.P90Ms, P95: t.P95Ms, P99: t.P99Ms, P999: t.P999Ms, Max: t.MaxMs},
		Resolution: 0.001,
	}
	for _, k := range noResponse {
		r.Responses -= t.ErrorKinds[k]
	}
	if h := t.Histogram; h != nil && h.Count() > 0 {
		r.Tail = func(ms float64) int64 { return histTail(h, ms) }
	}
	for _, row := range run.Series {
		if row.Warmup {
			continue
		}
		from := run.Start.Add(time.Duration((row.T - 1) * float64(time.Second)))
		r.Finished = append(r.Finished, truth.Second{T: from, Requests: row.Successes + row.Errors})
	}
	if run.Open != nil && run.Open.Dropped > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("the tool dropped %d of %d arrivals (every connection busy): never sent", run.Open.Dropped, run.Open.Arrivals))
	}
	if run.Settings.Model == "delay" {
		r.Notes = append(r.Notes, "closed model (delay): latencies count from the actual send")
	}
	return r
}

// histTail counts the samples of h at or above ms.
func histTail(h *loadtest.Histogram, ms float64) int64 {
	d := time.Duration(ms * float64(time.Millisecond))
	if h.Max() < d {
		return 0
	}
	lo, hi := 0.0, 1.0
	for i := 0; i < 40; i++ {
		mid := (lo + hi) / 2
		if h.Quantile(mid) >= d {
			hi = mid
		} else {
			lo = mid
		}
	}
	return int64(math.Round(float64(h.Count()) * (1 - lo)))
}
