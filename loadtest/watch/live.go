package watch

import (
	"cmp"
	"fmt"
	"time"
)

// A State is one state a target's requests can be in, read from a
// state-seconds counter at Path (the seconds spent in the state by all
// requests so far, in-progress ones included): its increase over a span
// divided by the span's length is the mean number of requests in the state
// over it (Little's law). Minus names states (earlier in the list) whose
// seconds are part of this one's counter and are taken off it, clamped at
// 0: for the board, requests holding a worker include those waiting for a
// connection and those in SQL, so "elsewhere" is busy minus both.
//
// States are data, like Stats: the target's package says which it has.
type State struct {
	Name string
	Path string
	// Metric is the counter's Prometheus selector ("" when the target
	// exports none: the state is then left out of a Prometheus read).
	Metric string
	Minus  []string
}

// A Share is the mean number of requests in one State over the span
// between two reads.
type Share struct {
	Name  string
	Value float64
}

// A Read is what one poll of the stats JSON says of the span since the
// poll before it: each stat's value in that span (see Values) and the
// mean number of requests in each state (States). Options.OnRead receives
// one a second while the run goes, warm-up and drain included.
type Read struct {
	// At is the time of the poll; Seconds the span since the poll before.
	At      time.Time
	Seconds float64
	// States are the Options.States' shares, in their order; a state
	// whose counter is missing from either read is left out.
	States []Share

	stats []Stat
	// raw holds per stat name the gauge's value as read, the counter's
	// increase per second over the span, or the histogram's mean or
	// quantile over it, before Scale; rate names the counters.
	raw  map[string]float64
	rate map[string]bool
	// absent are the stats the poll did not find (Absent).
	absent []Stat
}

// A Value is one stat's value over the span of a Read.
type Value struct {
	Stat Stat
	// Label is the stat's Legend, or its Name without one.
	Label string
	Value float64
}

// Values returns the stats' values over the read's span, in the
// stats' order: a gauge as read, a counter as its increase per second,
// a PerRequest counter per request given the target's completed requests
// per second in the span (the load tool's throughput: the watcher cannot
// count them), each times Scale; with Complement, 100 minus the value
// (busy from idle). A stat missing from either read, or a per-request
// one when no request completed, is left out.
func (r Read) Values(requestsPerSecond float64) []Value {
	out := make([]Value, 0, len(r.stats))
	for _, rd := range r.stats {
		v, ok := r.raw[rd.Name]
		if !ok {
			continue
		}
		if r.rate[rd.Name] && rd.PerRequest {
			if requestsPerSecond <= 0 {
				continue
			}
			v /= requestsPerSecond
		}
		v *= rd.Scale
		if rd.Complement {
			v = 100 - v
		}
		out = append(out, Value{Stat: rd, Label: cmp.Or(rd.Legend, rd.Name), Value: v})
	}
	return out
}

// Absent returns the stats, in their order, whose path the poll did
// not find, Optional ones aside: the target does not report them (for the
// board, a stat its OS cannot give), so they have no value, not 0.
func (r Read) Absent() []Stat { return r.absent }

// checkStates checks the states' names, paths and Minus references.
func checkStates(states []State) error {
	seen := map[string]bool{}
	for i, st := range states {
		if st.Name == "" || st.Path == "" && st.Metric == "" {
			return fmt.Errorf("state %d (%q): a name and a path or a metric are required", i+1, st.Name)
		}
		for _, m := range st.Minus {
			if !seen[m] {
				return fmt.Errorf("state %q: minus %q: want the name of a state listed before it", st.Name, m)
			}
		}
		if seen[st.Name] {
			return fmt.Errorf("state %q is listed twice", st.Name)
		}
		seen[st.Name] = true
	}
	return nil
}

// makeRead builds the Read of the span from the poll at t0 (stats prev
// and states prevStates, by name) to the poll at t1 (cur, curStates).
func makeRead(stats []Stat, states []State, prev, cur map[string]sample, prevStates, curStates map[string]float64, t0, t1 time.Time) Read {
	dt := t1.Sub(t0).Seconds()
	r := Read{At: t1, Seconds: dt, stats: stats, raw: make(map[string]float64, len(stats)), rate: map[string]bool{}}
	if dt <= 0 {
		return r
	}
	for _, rd := range stats {
		c, ok := cur[rd.Name]
		if !ok {
			if !rd.Optional {
				r.absent = append(r.absent, rd)
			}
			continue
		}
		p, had := prev[rd.Name]
		switch c.kind {
		case Gauge:
			r.raw[rd.Name] = c.v / c.per
		case Counter:
			if had {
				r.raw[rd.Name] = (c.v - p.v) / dt / c.per
				r.rate[rd.Name] = true
			}
		case Histogram:
			if v, ok := overSpan(rd, p, c); had && ok {
				r.raw[rd.Name] = v
			}
		}
	}
	got := map[string]float64{}
	for _, st := range states {
		c, ok1 := curStates[st.Name]
		p, ok2 := prevStates[st.Name]
		if !ok1 || !ok2 {
			continue
		}
		v := (c - p) / dt
		got[st.Name] = v // before Minus: each state's own share
		for _, m := range st.Minus {
			v -= got[m]
		}
		r.States = append(r.States, Share{Name: st.Name, Value: max(0, v)})
	}
	return r
}
