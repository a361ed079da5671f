package watch

import (
	"cmp"
	"fmt"
	"time"
)

// A State is a request state, from a counter of seconds spent in it (Little's
// law); Minus names earlier states it includes, taken off (clamped at 0).
type State struct {
	Name   string
	Path   string
	Metric string
	Minus  []string
}

// A Share is the mean number of requests in one State over a Read.
type Share struct {
	Name  string
	Value float64
}

// A Read is what one poll says of the Seconds since the poll before it:
// each stat's value (Values) and the shares of the Options.States.
type Read struct {
	At      time.Time
	Seconds float64
	States  []Share

	stats []Stat
	// raw holds each stat's value before Scale; rate names the counters.
	raw    map[string]float64
	rate   map[string]bool
	absent []Stat
}

// A Value is one stat's value over the span of a Read.
type Value struct {
	Stat  Stat
	Label string // the stat's Legend, or its Name without one
	Value float64
}

// Values returns the stats' values over the span: a gauge as read, a counter
// per second or per request at requestsPerSecond, times Scale (Complement).
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

// Absent returns the stats, Optional ones aside, that the poll did not find.
func (r Read) Absent() []Stat { return r.absent }

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

// makeRead builds the Read of the span between the polls at t0 and t1.
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
