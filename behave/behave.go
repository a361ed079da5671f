// Package behave is the board's behaviour on demand, for load-tool authors
// who need a target whose behaviour they know:
//
//	b := behave.New(behave.Settings{StallEvery: 10 * time.Second, StallFor: time.Second})
//	if !b.Wait() { ... } // at a handler's entry: held while a stall lasts
//
// It offers stalls (every worker and the listener stop taking work for a
// while, as a process pause would, on every OS), added service time drawn
// from a distribution, injected error statuses, and a fixed response size.
// Settings are the knobs; a Behaviour holds those in force, changes them
// while the board runs (Set), keeps the stalls' schedule and answers the
// gate that holds work during a stall.
//
// The package imports nothing of the module: bbs hooks it in.
package behave

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Bounds of the knobs.
const (
	MaxStallEvery = time.Hour
	MaxStallFor   = time.Minute
	MaxSize       = 100 << 20 // bytes
)

// Settings are the behaviour knobs. The zero value changes nothing.
type Settings struct {
	StallEvery  time.Duration // a stall starts every StallEvery; 0 = none
	StallFor    time.Duration // and lasts StallFor (0 < StallFor < StallEvery)
	Delay       Delay         // service time added to each /bbs request
	ErrorStatus int           // status answered instead, to ErrorShare of requests
	ErrorShare  float64       // 0..1
	Size        int64         // body bytes of every /bbs answer; 0 = as it is
}

// Keys names the knobs, as TOML keys and admin form keys.
var Keys = []string{"stall_every", "stall_for", "delay", "error_status", "error_share", "size"}

// IsZero reports whether s changes nothing.
func (s Settings) IsZero() bool {
	return s.StallEvery == 0 && s.Delay.IsZero() && s.ErrorShare == 0 && s.Size == 0
}

// Validate returns every problem, each naming the key and what is allowed.
func (s Settings) Validate() error {
	var errs []error
	bad := func(key string, v any, allowed string) {
		errs = append(errs, fmt.Errorf("%s = %v: %s", key, v, allowed))
	}
	if s.StallEvery < 0 || s.StallEvery > MaxStallEvery {
		bad("stall_every", s.StallEvery, fmt.Sprintf("must be 0s (no stalls) up to %v", MaxStallEvery))
	}
	switch {
	case s.StallEvery == 0 && s.StallFor != 0:
		bad("stall_for", s.StallFor, "must be 0s when stall_every is 0s (set stall_every too)")
	case s.StallEvery > 0 && (s.StallFor <= 0 || s.StallFor >= s.StallEvery || s.StallFor > MaxStallFor):
		bad("stall_for", s.StallFor, fmt.Sprintf("must be above 0s, below stall_every (%v) and at most %v", s.StallEvery, MaxStallFor))
	}
	if s.ErrorShare < 0 || s.ErrorShare > 1 || s.ErrorShare != s.ErrorShare {
		bad("error_share", s.ErrorShare, "must be 0 (none) up to 1 (every request)")
	}
	if s.ErrorStatus != 0 && (s.ErrorStatus < 200 || s.ErrorStatus > 599) {
		bad("error_status", s.ErrorStatus, "must be an HTTP status 200..599 (or 0 with error_share 0)")
	} else if s.ErrorShare > 0 && s.ErrorStatus == 0 {
		bad("error_status", s.ErrorStatus, "must be set (200..599) when error_share is above 0")
	}
	if s.Size < 0 || s.Size > MaxSize {
		bad("size", s.Size, fmt.Sprintf("must be 0 (the page as it is) up to %d bytes", MaxSize))
	}
	return errors.Join(errs...)
}

// Set parses value into the knob key of s (the admin listener's form
// values and the flags' text). The error names the key.
func (s *Settings) Set(key, value string) error {
	value = strings.TrimSpace(value)
	dur := func(d *time.Duration) error {
		v, err := time.ParseDuration(value)
		if err != nil {
			return fmt.Errorf("%s = %q: not a duration such as 400ms or 10s", key, value)
		}
		*d = v
		return nil
	}
	switch key {
	case "stall_every":
		return dur(&s.StallEvery)
	case "stall_for":
		return dur(&s.StallFor)
	case "delay":
		d, err := ParseDelay(value)
		if err != nil {
			return fmt.Errorf("delay = %v", err)
		}
		s.Delay = d
	case "error_status":
		v, err := strconv.Atoi(value)
		if err != nil {
			return fmt.Errorf("error_status = %q: not an HTTP status 200..599", value)
		}
		s.ErrorStatus = v
	case "error_share":
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return fmt.Errorf("error_share = %q: not a number 0..1", value)
		}
		s.ErrorShare = v
	case "size":
		v, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return fmt.Errorf("size = %q: not a whole number of bytes 0..%d", value, MaxSize)
		}
		s.Size = v
	default:
		return fmt.Errorf("%s: unknown key; the keys are %s", key, strings.Join(Keys, ", "))
	}
	return nil
}

// Override is what one request's query parameters ask for, in fortio's
// spirit: ?delay=, ?status= and ?size=. A field left unset leaves the
// knob in force.
type Override struct {
	Delay    Delay
	HasDelay bool
	Status   Statuses
	Size     int64
	HasSize  bool // size=0 asks for an empty body
}

// A ParamError is a bad query parameter of one request.
type ParamError struct {
	Param   string // delay, status or size
	Problem string
}

func (e *ParamError) Error() string { return e.Param + ": " + e.Problem }

// ParseOverride reads delay, status and size from q. The error is a
// *ParamError naming the parameter.
func ParseOverride(q url.Values) (Override, error) {
	var o Override
	if v, ok := q["delay"]; ok && len(v) > 0 {
		d, err := ParseDelay(v[0])
		if err != nil {
			return o, &ParamError{"delay", err.Error()}
		}
		o.Delay, o.HasDelay = d, true
	}
	if v, ok := q["status"]; ok && len(v) > 0 {
		s, err := ParseStatuses(v[0])
		if err != nil {
			return o, &ParamError{"status", err.Error()}
		}
		o.Status = s
	}
	if v, ok := q["size"]; ok && len(v) > 0 {
		n, err := strconv.ParseInt(v[0], 10, 64)
		if err != nil || n < 0 || n > MaxSize {
			return o, &ParamError{"size", fmt.Sprintf("%q is not a whole number of bytes 0..%d", v[0], MaxSize)}
		}
		o.Size, o.HasSize = n, true
	}
	return o, nil
}

// Statuses is a mix of injected statuses: each share of requests is
// answered with its code instead.
type Statuses []StatusShare

// A StatusShare is one status of a mix and the share (0..1) answered with it.
type StatusShare struct {
	Code  int
	Share float64
}

// IsZero reports whether s injects nothing.
func (s Statuses) IsZero() bool { return len(s) == 0 }

// ParseStatuses reads "503" (every request) or a mix in percent as
// fortio's ?status= does: "503:10,429:5" answers 10 % with 503, 5 % with
// 429 and the rest as usual.
func ParseStatuses(v string) (Statuses, error) {
	bad := fmt.Errorf("%q is not a status 200..599 or a mix such as 503:10,429:5 (percentages adding up to at most 100)", v)
	var out Statuses
	total := 0.0
	for part := range strings.SplitSeq(v, ",") {
		cs, ps, hasShare := strings.Cut(strings.TrimSpace(part), ":")
		code, err := strconv.Atoi(cs)
		if err != nil || code < 200 || code > 599 {
			return nil, bad
		}
		p := 100.0
		if hasShare {
			if p, err = strconv.ParseFloat(ps, 64); err != nil || p < 0 || p > 100 || p != p {
				return nil, bad
			}
		}
		total += p
		out = append(out, StatusShare{code, p / 100})
	}
	if total > 100+1e-9 {
		return nil, bad
	}
	return out, nil
}

// Draw returns the status for a uniform random number u in [0, 1), or 0
// for an answer as usual.
func (s Statuses) Draw(u float64) int {
	for _, c := range s {
		if u < c.Share {
			return c.Code
		}
		u -= c.Share
	}
	return 0
}

// A Plan is what one /bbs request does beyond the board's work: wait,
// answer with another status, and resize its body.
type Plan struct {
	Delay  time.Duration // added service time
	Status int           // 0: as usual
	Size   int64         // body bytes; -1: as it is
}

// Plan draws what a request does under settings s and override o.
func (s *Settings) Plan(o Override) Plan {
	p := Plan{Size: -1}
	d := s.Delay
	if o.HasDelay {
		d = o.Delay
	}
	p.Delay = d.Sample()
	switch {
	case !o.Status.IsZero():
		p.Status = o.Status.Draw(rand.Float64())
	case s.ErrorShare > 0:
		p.Status = Statuses{{s.ErrorStatus, s.ErrorShare}}.Draw(rand.Float64())
	}
	switch {
	case o.HasSize:
		p.Size = o.Size
	case s.Size > 0:
		p.Size = s.Size
	}
	return p
}
