package loadtest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// An Objective is one service-level objective, such as "p99.9<5ms" or "errors<0.1%".
type Objective struct {
	Text string // as written
	// Metric is "pNN.N", "mean", "max", "errors" or "throughput".
	Metric   string
	Quantile float64 // 0.999 for p99.9
	Less     bool    // "<" rather than ">"
	// Limit is in nanoseconds (latency), percent (errors) or per second (throughput).
	Limit float64
}

// ParseSLO parses a comma-separated list of objectives: "p99.9<5ms,errors<0.1%".
func ParseSLO(s string) ([]Objective, error) {
	var out []Objective
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		o, err := parseObjective(part)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("slo %q: no objectives", s)
	}
	return out, nil
}

func parseObjective(s string) (Objective, error) {
	o := Objective{Text: s}
	i := strings.IndexAny(s, "<>")
	if i <= 0 || i == len(s)-1 {
		return o, fmt.Errorf("slo %q: want METRIC<LIMIT or METRIC>LIMIT", s)
	}
	o.Metric, o.Less = strings.TrimSpace(s[:i]), s[i] == '<'
	lim := strings.TrimSpace(s[i+1:])
	switch {
	case strings.HasPrefix(o.Metric, "p"):
		q, err := strconv.ParseFloat(o.Metric[1:], 64)
		if err != nil || q <= 0 || q >= 100 {
			return o, fmt.Errorf("slo %q: bad percentile %q (want p50, p99.9, ...)", s, o.Metric)
		}
		o.Quantile = q / 100
		fallthrough
	case o.Metric == "mean" || o.Metric == "max":
		d, err := time.ParseDuration(lim)
		if err != nil || d <= 0 {
			return o, fmt.Errorf("slo %q: bad latency limit %q (want e.g. 5ms)", s, lim)
		}
		o.Limit = float64(d)
	case o.Metric == "errors":
		v, err := strconv.ParseFloat(strings.TrimSuffix(lim, "%"), 64)
		if err != nil || !strings.HasSuffix(lim, "%") || v < 0 {
			return o, fmt.Errorf("slo %q: bad error limit %q (want a percentage such as 0.1%%)", s, lim)
		}
		o.Limit = v
	case o.Metric == "throughput":
		v, err := strconv.ParseFloat(strings.TrimSuffix(lim, "/s"), 64)
		if err != nil || v < 0 {
			return o, fmt.Errorf("slo %q: bad throughput limit %q (want requests per second)", s, lim)
		}
		o.Limit = v
	default:
		return o, fmt.Errorf("slo %q: unknown metric %q (want pNN, mean, max, errors or throughput)", s, o.Metric)
	}
	return o, nil
}

// MinSamples returns how many samples back a percentile (other metrics: 1).
func (o Objective) MinSamples() int64 {
	if o.Quantile == 0 {
		return 1
	}
	return int64(math.Ceil(1/(1-o.Quantile) - 1e-9))
}

// String returns the objective as written.
func (o Objective) String() string { return o.Text }

// MarshalJSON writes the objective as written, "p99.9<5ms".
func (o Objective) MarshalJSON() ([]byte, error) { return json.Marshal(o.Text) }

// UnmarshalJSON reads an objective written by MarshalJSON.
func (o *Objective) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := parseObjective(s)
	if err != nil {
		return err
	}
	*o = p
	return nil
}

// An ObjectiveResult is one objective's value in its unit (ms, %, /s).
type ObjectiveResult struct {
	Objective Objective `json:"objective"`
	Value     float64   `json:"value"`
	Pass      bool      `json:"pass"`
	Warning   string    `json:"warning,omitempty"`
}

// EvaluateSLO checks the objectives against r's totals.
func EvaluateSLO(r *Result, objs []Objective) []ObjectiveResult {
	var out []ObjectiveResult
	t := r.Total
	for _, o := range objs {
		v := ObjectiveResult{Objective: o}
		switch {
		case o.Quantile > 0, o.Metric == "mean", o.Metric == "max":
			var d time.Duration
			if t.Histogram != nil {
				switch o.Metric {
				case "mean":
					d = t.Histogram.Mean()
				case "max":
					d = t.Histogram.Max()
				default:
					d = t.Histogram.Quantile(o.Quantile)
				}
			}
			v.Value = ms(d)
			v.Pass = compare(float64(d), o.Limit, o.Less) && t.Successes > 0
			if need := o.MinSamples(); t.Successes < need {
				v.Warning = fmt.Sprintf("%d samples cannot support %s (needs at least %d)", t.Successes, o.Metric, need)
			}
		case o.Metric == "errors":
			if t.Requests > 0 {
				v.Value = 100 * float64(t.Errors) / float64(t.Requests)
			}
			v.Pass = compare(v.Value, o.Limit, o.Less) && t.Requests > 0
		case o.Metric == "throughput":
			v.Value = t.Throughput
			v.Pass = compare(v.Value, o.Limit, o.Less)
		}
		out = append(out, v)
	}
	return out
}

func compare(v, lim float64, less bool) bool {
	if less {
		return v < lim
	}
	return v > lim
}
