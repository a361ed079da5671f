package grade

import (
	"bbslab/truth"
	"cmp"
	"math"
	"slices"
	"sort"
	"time"
)

// A Report is what one tool said of its run, in one shape whatever the
// format: counts, the latency distribution (per request, as a histogram,
// or as a few percentiles) and, when the format has them, when each request
// was sent.
type Report struct {
	// Name and Format name the input (the file, and a sweep's step).
	Name, Format string
	// Start is when the run's measured span began, End when it ended;
	// zero when the format has only offsets (Relative) until matched to
	// the truth's seconds (align).
	Start, End time.Time
	Relative   bool
	// Span is End - Start, known even when Start is not.
	Span time.Duration
	// Sent counts the requests the tool sent; Responses those that got an
	// HTTP status, by status in Status; the rest got no response.
	Sent, Responses int64
	Status          map[int]int64
	// Requests holds one entry per request when the format has them
	// (At: the intended or actual send, from Start).
	Requests []Request
	// Lat holds the latency figures of the successful requests in ms
	// (NaN: the format does not say); Tail counts the requests at or
	// above a latency, nil when only percentiles are known.
	Lat  Percentiles
	Tail func(ms float64) int64
	// Resolution is the format's latency resolution in ms.
	Resolution float64
	// Correction, when the tool corrected Lat for coordinated omission
	// before writing it, says how (nil: Lat is of its requests).
	Correction *Correction
	// Finished, for formats without per-request times: the requests
	// finished in each second (the lab's series), T the second's start.
	Finished []truth.Second
	// Notes are said under the report (what the format lacks).
	Notes []string
}

// A Request is one request of a tool's run.
type Request struct {
	At      time.Duration // send, from the run's start
	Latency time.Duration
	Status  int // 0: no response
}

// Percentiles are a latency distribution's figures in ms.
type Percentiles struct {
	P50, P90, P95, P99, P999, Max float64
}

// nan is an unknown figure.
var nan = math.NaN()

// fromRequests fills the counts, the percentiles and the tail of r from
// r.Requests: latencies of the requests with a 2xx or 3xx status.
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
		if q.At > last {
			last = q.At
		}
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

// fromSends places r at the earliest of sends, each request's absolute
// send in r.Requests' order, sets each request's At from there and fills
// the counts (fromRequests).
func (r *Report) fromSends(sends []time.Time) {
	r.Start = slices.MinFunc(sends, time.Time.Compare)
	for i, s := range sends {
		r.Requests[i].At = s.Sub(r.Start)
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
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	if i < 0 {
		i = 0
	}
	return sorted[i]
}
