// Package knob declares the board's numeric knobs once, in one table
// (Board): each one's key, bounds, default, unit and help. config reads it
// for its defaults, bounds and flags, bbs for the knobs /admin/knobs sets
// while the board runs and their gauges, entity for the pool's sizes;
// Table.Validate holds the rules between knobs.
package knob

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Decl declares one knob: a whole number, or a duration in nanoseconds.
type Decl struct {
	// Key is the TOML key ("profile.block_rate": block_rate in the
	// [profile] table), the JSON key of /admin/stats and, when Live, of
	// /admin/knobs; the flag is its last part with "_" spelled "-".
	Key string
	Dur bool // a duration, written "5s"
	// Min and Max bound the value; Open refuses Min itself ("above 0s").
	Min, Max int64
	Open     bool
	Default  int64
	Unit     string // of a whole number: "workers", "connections", ...
	Note     string // what Min means, when it means something special
	Help     string // the flag's usage, before the bounds
	// Live knobs are set while the board runs (/admin/knobs), from LiveMin
	// when it is above Min: a value below it only a start sets.
	Live    bool
	LiveMin int64
	Metric  string // the gauge of the value in force on /metrics
}

// Flag is the command-line flag's name.
func (d Decl) Flag() string {
	return strings.ReplaceAll(d.Key[strings.LastIndex(d.Key, ".")+1:], "_", "-")
}

// Format writes v as TOML and the flags take it: 30, 5s, 1h0m0s.
func (d Decl) Format(v int64) string {
	if d.Dur {
		return time.Duration(v).String()
	}
	return strconv.FormatInt(v, 10)
}

// Bounds says what the knob takes: "0..100000 workers (0 = unlimited)",
// "above 0s and at most 1h0m0s", "0s (none) up to 10s".
func (d Decl) Bounds() string {
	lo, hi := d.Format(d.Min), d.Format(d.Max)
	switch {
	case d.Open:
		return "above " + lo + " and at most " + hi
	case d.Dur && d.Note != "":
		return lo + " (" + d.Note + ") up to " + hi
	case d.Dur:
		return lo + " up to " + hi
	case d.Note != "":
		return fmt.Sprintf("%s..%s %s (%s = %s)", lo, hi, d.Unit, lo, d.Note)
	}
	return strings.TrimSpace(lo + ".." + hi + " " + d.Unit)
}

// Check refuses a value out of bounds, naming the knob, the value, the
// bounds and the unit.
func (d Decl) Check(v int64) error {
	if v < d.Min || d.Open && v == d.Min || v > d.Max {
		return fmt.Errorf("%s = %s: must be %s", d.Key, d.Format(v), d.Bounds())
	}
	return nil
}

// ParseLive reads a value given to a running board (/admin/knobs,
// /admin/distance), within the bounds it takes then.
func (d Decl) ParseLive(s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if d.Dur {
		t, terr := time.ParseDuration(s)
		v, err = int64(t), terr
	}
	live, also := d, ""
	if d.LiveMin > d.Min {
		live.Min, live.Note, also = d.LiveMin, "", fmt.Sprintf(" (%s = %s: only at start)", d.Format(d.Min), d.Note)
	}
	if err == nil && live.Check(v) == nil {
		return v, nil
	}
	if d.Dur {
		also += ", a duration such as " + d.Format(cmp.Or(d.Default, d.Max))
	}
	return 0, fmt.Errorf("%s = %q: must be %s%s", d.Key, s, live.Bounds(), also)
}

// Table is a list of declarations, such as Board.
type Table []Decl

// Get returns the declaration of key; an unknown key panics.
func (t Table) Get(key string) Decl {
	for _, d := range t {
		if d.Key == key {
			return d
		}
	}
	panic("knob: no knob " + key)
}

// Validate checks the values given by key, each against its bounds, then
// the rules between knobs, and returns every problem found.
func (t Table) Validate(v map[string]int64) error {
	var errs []error
	for _, d := range t {
		if x, ok := v[d.Key]; ok {
			errs = append(errs, d.Check(x))
		}
	}
	minConns, okMin := v["pool_min"]
	if maxConns, ok := v["pool"]; ok && okMin && minConns > maxConns {
		errs = append(errs, fmt.Errorf("pool_min = %d is above pool = %d: must be at most pool (%d)", minConns, maxConns, maxConns))
	}
	return errors.Join(errs...)
}
