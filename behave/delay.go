package behave

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// maxDelay bounds every duration a Delay can draw.
const maxDelay = time.Minute

// A Delay is a distribution of added service time. Its zero value adds
// nothing. ParseDelay reads the four forms:
//
//	5ms              fixed: every request waits 5 ms
//	uniform:1ms-9ms  uniform between the two bounds
//	exp:5ms          exponential with a mean of 5 ms (capped at 1m)
//	10ms:50,100ms:10 a percentile mix, as fortio's ?delay=: 50 % wait 10 ms,
//	                 10 % wait 100 ms, the remaining 40 % nothing
type Delay struct {
	kind  delayKind
	a, b  time.Duration // fixed: a; uniform: a..b; exp: mean a
	steps []step        // mix
	text  string        // as parsed, for String
}

type delayKind uint8

const (
	none delayKind = iota
	fixed
	uniform
	exponential
	mix
)

// A step is one part of a percentile mix: percent % of requests wait d.
type step struct {
	d       time.Duration
	percent float64
}

// ParseDelay reads a Delay; "" and "0" (or any zero duration) add nothing.
// The error says what is allowed, not naming a key: callers add theirs.
func ParseDelay(s string) (Delay, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Delay{}, nil
	}
	bad := func(why string) (Delay, error) {
		return Delay{}, fmt.Errorf("%q %s; use a duration (5ms), uniform:1ms-9ms, exp:5ms or a mix such as 10ms:50,100ms:10 (durations 0..%v)", s, why, maxDelay)
	}
	switch {
	case strings.HasPrefix(s, "uniform:"):
		lo, hi, ok := strings.Cut(strings.TrimPrefix(s, "uniform:"), "-")
		if !ok {
			return bad("has no - between its bounds")
		}
		a, err1 := duration(lo)
		b, err2 := duration(hi)
		if err1 != nil || err2 != nil || b < a {
			return bad("needs two durations, the first not above the second")
		}
		return Delay{kind: uniform, a: a, b: b, text: s}, nil
	case strings.HasPrefix(s, "exp:"):
		m, err := duration(strings.TrimPrefix(s, "exp:"))
		if err != nil || m == 0 {
			return bad("needs a mean above 0")
		}
		return Delay{kind: exponential, a: m, text: s}, nil
	case strings.Contains(s, ":"):
		var d Delay
		total := 0.0
		for part := range strings.SplitSeq(s, ",") {
			ds, ps, ok := strings.Cut(strings.TrimSpace(part), ":")
			if !ok {
				return bad("mixes parts with and without a percentage")
			}
			v, err := duration(ds)
			if err != nil {
				return bad("has a part whose duration is not valid")
			}
			p, err := strconv.ParseFloat(ps, 64)
			if err != nil || p < 0 || p > 100 || math.IsNaN(p) {
				return bad("has a percentage that is not 0..100")
			}
			total += p
			d.steps = append(d.steps, step{v, p})
		}
		if total > 100+1e-9 {
			return bad("has percentages adding up to more than 100")
		}
		d.kind, d.text = mix, s
		return d, nil
	}
	v, err := duration(s)
	if err != nil {
		return bad("is not a duration")
	}
	if v == 0 {
		return Delay{}, nil
	}
	return Delay{kind: fixed, a: v, text: s}, nil
}

// duration parses a duration from 0 to maxDelay.
func duration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	if d < 0 || d > maxDelay {
		return 0, fmt.Errorf("out of range")
	}
	return d, nil
}

// IsZero reports whether d adds nothing.
func (d Delay) IsZero() bool { return d.kind == none }

// String returns d as ParseDelay read it ("" for none).
func (d Delay) String() string { return d.text }

// Draw returns the wait for a uniform random number u in [0, 1).
func (d Delay) Draw(u float64) time.Duration {
	switch d.kind {
	case fixed:
		return d.a
	case uniform:
		return d.a + time.Duration(u*float64(d.b-d.a))
	case exponential:
		v := -math.Log(1-u) * float64(d.a)
		if v > float64(maxDelay) {
			return maxDelay
		}
		return time.Duration(v)
	case mix:
		p := u * 100
		for _, s := range d.steps {
			if p < s.percent {
				return s.d
			}
			p -= s.percent
		}
	}
	return 0
}

// Sample draws one wait.
func (d Delay) Sample() time.Duration {
	if d.kind == none {
		return 0
	}
	return d.Draw(rand.Float64())
}
