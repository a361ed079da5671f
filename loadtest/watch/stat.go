package watch

import (
	"fmt"

	"bbslab/loadtest"
	"bbslab/loadtest/text"
)

// A Stat is one number the watcher keeps, at Path in the stats JSON or from
// the Prometheus series Metric: a gauge is averaged, a counter gives its rate
// (PerRequest: per success), a histogram its mean or Quantile.
type Stat struct {
	Name       string  `toml:"name"`
	Path       string  `toml:"path"`
	Kind       string  `toml:"kind"` // gauge or counter
	PerRequest bool    `toml:"per_request"`
	Scale      float64 `toml:"scale"` // multiplies the value (default 1)
	Unit       string  `toml:"unit"`
	// Metric is a PromQL selector whose series are summed; Per a gauge it is
	// divided by (a count of CPUs); MetricScale replaces Scale for it.
	Metric      string  `toml:"metric"`
	Quantile    float64 `toml:"quantile"`
	Per         string  `toml:"per"`
	MetricScale float64 `toml:"metric_scale"`
	// Optional says the target may leave the stat out without a warning.
	Optional bool `toml:"optional"`
	// Chart names the server chart it is drawn on, Legend its line there and
	// on the dashboard; Complement draws 100 minus it (busy from idle).
	Chart      string `toml:"chart"`
	Legend     string `toml:"legend"`
	Dashed     bool   `toml:"dashed"`
	Complement bool   `toml:"complement"`
	// Panel names the live dashboard's panel of the stat, "" for none.
	Panel string `toml:"panel"`
	// Column heads its sweep-table column, printed with Format (default %.3f).
	Column string `toml:"column"`
	Format string `toml:"format"`
}

// The kinds of stat.
const (
	Gauge   = "gauge"
	Counter = "counter"
)

// Check checks a stat as a file or a flag gives it.
func (s Stat) Check() error {
	if s.Name == "" || s.Path == "" && s.Metric == "" {
		return fmt.Errorf("stat %q: a name and a path (stats JSON) or a metric (Prometheus) are required", s.Name)
	}
	switch {
	case s.Kind == Gauge, s.Kind == Counter:
	case s.Kind == "" && s.Path == "":
	default:
		return fmt.Errorf("stat %q: kind %q: want gauge or counter", s.Name, s.Kind)
	}
	if s.Metric == "" {
		if s.Per != "" || s.Quantile != 0 || s.MetricScale != 0 {
			return fmt.Errorf("stat %q: per, quantile and metric_scale read a Prometheus metric: give metric too", s.Name)
		}
		return nil
	}
	if _, err := parseSelector(s.Metric); err != nil {
		return fmt.Errorf("stat %q: metric: %w", s.Name, err)
	}
	if s.Per != "" {
		if _, err := parseSelector(s.Per); err != nil {
			return fmt.Errorf("stat %q: per: %w", s.Name, err)
		}
	}
	if s.Quantile < 0 || s.Quantile >= 1 {
		return fmt.Errorf("stat %q: quantile %g: want 0 (the mean) or a quantile between 0 and 1, e.g. 0.99", s.Name, s.Quantile)
	}
	return nil
}

// A Chart is one server chart of a sweep, drawn against clients.
type Chart struct {
	Name   string
	Title  string
	YLabel string
}

// Columns returns the sweep table's columns of the stats with a Column.
func Columns(rs []Stat) []text.Column {
	var out []text.Column
	for _, r := range rs {
		if r.Column != "" {
			value := func(res *loadtest.Result) (float64, bool) {
				s, _ := Of(res)
				return s.Server.Value(r.Name)
			}
			out = append(out, text.Column{Header: r.Column, Format: r.Format, Value: value})
		}
	}
	return out
}
