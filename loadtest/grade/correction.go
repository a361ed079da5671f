package grade

import (
	"fmt"
	"math"
	"time"
)

// A Correction is how a tool corrected its latency figures for
// coordinated omission before writing them: its percentiles (and mean)
// describe its requests and synthetic samples, not its requests alone.
//
// wrk (4.0.0 and later, since its commit ef6a836 "remove calibration &
// improve CO correction", 2015; Debian's 4.1.0 included) does so in
// src/stats.c, stats_correct, which src/wrk.c calls before printing
// anything: with interval = run time / (requests / connections), the mean
// interval per connection, for every recorded latency n of at least
// 2 x interval it adds one sample at each of n - interval, n - 2 x
// interval, ... while the value is above one interval. A response held
// 1 s with an interval of 2 ms brings 498 synthetic samples, 998 ms down
// to 4 ms: the latencies of the requests a client sending at that
// interval would have sent while it waited.
// The max is a request's (the samples lie below the latency they come
// from); the percentiles, mean and stdev are of the corrected samples.
type Correction struct {
	// Source names where the tool defines the correction.
	Source string
	// Interval is the tool's mean interval per connection; Connections
	// its connections (0: unknown).
	Interval    time.Duration
	Connections int
	// Mean is the mean latency the tool printed in ms (NaN: none).
	Mean float64
}

// littleSlack is how far above Little's-law bound a printed mean may be
// before it is said not to be of the tool's requests: the bound uses the
// tool's rounded run time and counts.
const littleSlack = 0.05

// describe says, in lines for the report, what the correction did to r's
// figures, and checks the printed mean by Little's law: with C
// connections each waiting on one request at a time, a closed-loop tool
// has at most C requests in flight, so the mean latency of its requests
// is at most C / throughput (which is the interval itself).
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

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
