package grade

import (
	"fmt"
	"math"
	"time"
)

// A Correction is how a tool corrected its latency figures for coordinated
// omission before writing them: its percentiles and mean are not of its
// requests alone (its max is a request's). wrk's src/stats.c stats_correct
// adds, below each latency n of at least twice the mean interval per
// connection, a sample at n - interval, n - 2 x interval, ... above one interval.
type Correction struct {
	Source      string        // where the tool defines it
	Interval    time.Duration // mean interval per connection
	Connections int           // 0: unknown
	Mean        float64       // the mean latency printed, ms (NaN: none)
}

// littleSlack is the share a printed mean may exceed Little's-law bound, for rounding.
const littleSlack = 0.05

// describe says what the correction did to r's figures and checks the printed
// mean by Little's law: C connections in a closed loop bound it at C / throughput.
func (c *Correction) describe(r *Report) []string {
	lines := []string{fmt.Sprintf("the tool's latency figures are of corrected samples (%s), not of its %d requests alone", c.Source, r.Responses)}
	if c.Interval <= 0 || c.Connections <= 0 || r.Responses <= 0 || r.Span <= 0 {
		return lines
	}
	iv := ms(c.Interval)
	lines[0] += fmt.Sprintf(": each latency of at least 2 x %.3f ms (its mean interval per connection: %.2f s / (%d requests / %d connections)) brought synthetic samples at %.3f ms, %.3f ms, ... below it, down to above %.3f ms; its max is a request's",
		iv, r.Span.Seconds(), r.Responses, c.Connections, iv, 2*iv, iv)
	if math.IsNaN(c.Mean) {
		return lines
	}
	rate := float64(r.Responses) / r.Span.Seconds()
	bound := 1000 * float64(c.Connections) / rate
	l := fmt.Sprintf("Little's law: %d connections at %.1f/s bound the mean latency of its requests at %d / %.1f s = %.3f ms; the tool printed a mean of %.3f ms",
		c.Connections, rate, c.Connections, rate, bound, c.Mean)
	if c.Mean > bound*(1+littleSlack)+r.Resolution {
		l += ": that mean is not of its requests, it is of the corrected samples"
	}
	return append(lines, l)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
