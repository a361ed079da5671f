package grade

import (
	"bbslab/truth"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"time"
)

// TruthLogPath is where the server serves its truth's per-request log when the truth says Log.
const TruthLogPath = TruthPath + "/log"

// A Logged is one request of the truth's per-request log: its arrival at
// the listener and the end of its response's write.
type Logged struct {
	Arrival time.Time `json:"arrival"`
	End     time.Time `json:"end"`
}

// decodeTruthLog reads JSON lines of Logged, sorted by arrival.
func decodeTruthLog(r io.Reader, from string) ([]Logged, error) {
	var out []Logged
	err := eachLine(r, func(n int, line []byte) error {
		var l Logged
		if err := json.Unmarshal(line, &l); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("truth log from %s: %w", from, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Arrival.Before(out[j].Arrival) })
	return out, nil
}

// inStallsLogged counts the logged requests that arrived in the stalls and
// those the server held at least atMs.
func inStallsLogged(log []Logged, stalls []truth.Span, atMs float64) (arrived, tail int64) {
	at := time.Duration(atMs * float64(time.Millisecond))
	for _, l := range log {
		if inStalls(l.Arrival, stalls) {
			arrived++
		}
		if l.End.Sub(l.Arrival) >= at {
			tail++
		}
	}
	return arrived, tail
}

// refine places a report of offsets to the millisecond by the truth's log: the
// n-th send is the n-th arrival, so of the arrivals within a second of the coarse
// start it pairs from the one with the steadiest gap, shifted by its median gap.
func refine(r *Report, log []Logged) (time.Time, bool) {
	sends := make([]time.Duration, len(r.Requests))
	for i, q := range r.Requests {
		sends[i] = q.At
	}
	sort.Slice(sends, func(i, j int) bool { return sends[i] < sends[j] })
	if len(sends) == 0 || len(log) == 0 {
		return time.Time{}, false
	}
	lo := sort.Search(len(log), func(i int) bool { return !log[i].Arrival.Before(r.Start.Add(-time.Second)) })
	step := max(1, len(sends)/1000)
	best, bestStart := -1.0, time.Time{}
	for k := lo; k < len(log) && log[k].Arrival.Before(r.Start.Add(time.Second)); k++ {
		var gaps []time.Duration
		for i := 0; i < len(sends) && k+i < len(log); i += step {
			gaps = append(gaps, log[k+i].Arrival.Sub(r.Start)-sends[i])
		}
		if len(gaps) < len(sends)/step/2 {
			break // too few arrivals left to pair
		}
		sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
		med := gaps[len(gaps)/2]
		var dev float64
		for _, g := range gaps {
			dev += math.Abs(float64(g - med))
		}
		if best < 0 || dev < best {
			best, bestStart = dev, r.Start.Add(med)
		}
	}
	return bestStart, best >= 0
}
