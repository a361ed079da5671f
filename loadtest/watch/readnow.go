package watch

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"
)

// ReadNow reads the stats endpoint at url once and returns the raw values
// of stats it found (histograms aside) by name, and when it was sent.
func ReadNow(ctx context.Context, url, format string, stats []Stat) (map[string]float64, time.Time, error) {
	if err := CheckFormat(format); err != nil {
		return nil, time.Time{}, err
	}
	sels := selectors{}
	for _, r := range stats {
		if err := sels.add(r.Metric, r.Per); err != nil {
			return nil, time.Time{}, fmt.Errorf("stats reading %q: %w", r.Name, err)
		}
	}
	sc, at, err := fetch(ctx, &http.Client{Timeout: 2 * time.Second}, url, format)
	if err != nil {
		return nil, at, err
	}
	out := map[string]float64{}
	for _, r := range stats {
		if r.Kind == Histogram {
			continue
		}
		r.Kind = cmp.Or(r.Kind, Gauge)
		if v, ok := sc.sample(r, sels); ok {
			out[r.Name] = v.v
		}
	}
	return out, at, nil
}
