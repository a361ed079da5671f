package grade

import (
	"bbslab/truth"
	"cmp"
	"math"
	"slices"
	"sort"
	"time"
)

// A Report is what one tool said of its run, in one shape whatever the format.
type Report struct {
	Name, Format string // the file (and a sweep's step), its format
	// Start and End are zero while Relative: offsets only, until align.
	Start, End time.Time
	Relative   bool
	Span       time.Duration // End - Start, known even when Start is not
	// Responses got an HTTP status, counted by status in Status.
	Sent, Responses int64
	Status          map[int]int64
	Requests        []Request // when the format has them
	// Lat is of the successful requests in ms (NaN: not said); Tail counts
	// those at or above a latency (nil: only percentiles are known).
	Lat        Percentiles
	Tail       func(ms float64) int64
	Resolution float64     // of the format's latencies, ms
	Correction *Correction // how the tool corrected Lat, if it did
	// Finished are the requests finished each second (the lab's series).
	Finished []truth.Second
	Notes    []string // said under the report
}

// A Request is one request of a tool's run.
type Request struct {
	At      time.Duration // send, from the run's start
	Sent    time.Time     // send, when the format gives it absolute (fromSends)
	Latency time.Duration
	Status  int // 0: no response
}

// Percentiles are a latency distribution's figures in ms.
type Percentiles struct {
	P50, P90, P95, P99, P999, Max float64
}

// nan is an unknown figure.
var nan = math.NaN()

// fromRequests fills r's counts, percentiles (2xx and 3xx) and tail from its Requests.
func (r *Report) fromRequests() {
	r.Status = map[int]int64{}
	var lats []float64
	var last time.Duration
	for _, q := range r.Requests {
		r.Sent++
		if q.Status > 0 {
			r.Responses++
			r.Status[q.Status]++
		}
		if q.Status >= 200 && q.Status < 400 {
			lats = append(lats, float64(q.Latency)/float64(time.Millisecond))
		}
		last = max(last, q.At)
	}
	r.Span = cmp.Or(r.Span, last)
	if !r.Start.IsZero() && r.End.IsZero() {
		r.End = r.Start.Add(r.Span)
	}
	sort.Float64s(lats)
	r.Lat = percentiles(lats)
	r.Tail = func(ms float64) int64 {
		i := sort.SearchFloat64s(lats, ms)
		return int64(len(lats) - i)
	}
}

// fromSends places r at its requests' earliest absolute send and fills its counts.
func (r *Report) fromSends() {
	r.Start = slices.MinFunc(r.Requests, func(a, b Request) int { return a.Sent.Compare(b.Sent) }).Sent
	for i, q := range r.Requests {
		r.Requests[i].At = q.Sent.Sub(r.Start)
	}
	r.fromRequests()
}

// percentiles are the figures of sorted values (ms).
func percentiles(sorted []float64) Percentiles {
	at := func(q float64) float64 { return quantile(sorted, q) }
	return Percentiles{P50: at(0.5), P90: at(0.9), P95: at(0.95), P99: at(0.99), P999: at(0.999), Max: at(1)}
}

// quantile is the nearest-rank quantile of sorted values; NaN when empty.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return nan
	}
	return sorted[max(0, int(math.Ceil(q*float64(len(sorted))))-1)]
}
