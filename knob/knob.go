// Package knob declares the board's numeric knobs once: each one's key,
// bounds, default, unit and help, in one table (Board). config reads it
// for its TOML keys' defaults, bounds and flags, bbs for the knobs
// /admin/knobs sets while the board runs and the gauges of their values,
// entity for the pool's sizes; Validate holds the rules between knobs.
package knob

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kind is how a knob's value is written: a whole number or a duration
// (nanoseconds, written as "5s").
type Kind int

// The kinds of knobs.
const (
	Int Kind = iota
	Duration
)

// Decl declares one knob.
type Decl struct {
	// Key is the TOML key ("profile.block_rate": block_rate in the
	// [profile] table), the JSON key of /admin/stats and, when Live, the
	// key of /admin/knobs; the flag is its last part, "_" spelled "-".
	Key  string
	Kind Kind
	// Min and Max bound the value at start; Open refuses Min itself (a
	// duration "above 0s").
	Min, Max int64
	Open     bool
	Default  int64
	Unit     string // of a whole number: "workers", "connections", ...
	Note     string // what Min means, when it means something special
	Help     string // the flag's usage
	// Live knobs can be set while the board runs (/admin/knobs), from
	// LiveMin (Min when 0) to Max: Min below LiveMin only at start.
	Live    bool
	LiveMin int64
	// Metric is the gauge of the value in force on /metrics, if any.
	Metric string
}

// Flag is the command-line flag's name: the key's last part, "_" as "-".
func (d Decl) Flag() string {
	return strings.ReplaceAll(d.Key[strings.LastIndex(d.Key, ".")+1:], "_", "-")
}

// Format writes v as the knob's TOML and flags write it: 30, 5s, 1h0m0s.
func (d Decl) Format(v int64) string {
	if d.Kind == Int {
		return strconv.FormatInt(v, 10)
	}
	return time.Duration(v).String()
}

// Bounds says what the knob accepts from lo to Max: "0..100000 workers
// (0 = unlimited)", "above 0s and at most 1h0m0s", "0s (none) up to 10s".
func (d Decl) Bounds() string { return d.bounds(d.Min, d.Note) }

func (d Decl) bounds(lo int64, note string) string {
	switch {
	case d.Open:
		return fmt.Sprintf("above %s and at most %s", d.Format(lo), d.Format(d.Max))
	case d.Kind == Duration && note != "":
		return fmt.Sprintf("%s (%s) up to %s", d.Format(lo), note, d.Format(d.Max))
	case d.Kind == Duration:
		return fmt.Sprintf("%s up to %s", d.Format(lo), d.Format(d.Max))
	}
	s := strings.TrimSpace(fmt.Sprintf("%d..%d %s", lo, d.Max, d.Unit))
	if note != "" {
		s += fmt.Sprintf(" (%d = %s)", lo, note)
	}
	return s
}

// Usage is the flag's usage: the help and the bounds.
func (d Decl) Usage() string { return d.Help + ": " + d.Bounds() }

// Check refuses a value out of bounds with an error naming the knob, the
// value and the bounds.
func (d Decl) Check(v int64) error {
	if v < d.Min || d.Open && v == d.Min || v > d.Max {
		return fmt.Errorf("%s = %s: must be %s", d.Key, d.Format(v), d.Bounds())
	}
	return nil
}

// ParseLive reads a value given to /admin/knobs, checked against the
// bounds a running board accepts.
func (d Decl) ParseLive(s string) (int64, error) {
	var v int64
	var err error
	if d.Kind == Int {
		v, err = strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	} else {
		var t time.Duration
		t, err = time.ParseDuration(strings.TrimSpace(s))
		v = int64(t)
	}
	lo := max(d.LiveMin, d.Min)
	if err == nil && v >= lo && !(d.Open && v == d.Min) && v <= d.Max {
		return v, nil
	}
	want := d.bounds(lo, "")
	if lo == d.Min {
		want = d.Bounds()
	} else if d.Note != "" {
		want += fmt.Sprintf(" (%s = %s: only at start)", d.Format(d.Min), d.Note)
	}
	if d.Kind == Duration {
		want += ", a duration such as " + d.Format(d.Default)
	}
	return 0, fmt.Errorf("%s = %q: must be %s", d.Key, s, want)
}

// Table is a list of declarations, such as Board.
type Table []Decl

// Get returns the declaration of key; an unknown key is a programming
// error and panics.
func (t Table) Get(key string) Decl {
	for _, d := range t {
		if d.Key == key {
			return d
		}
	}
	panic("knob: no knob " + key)
}

// LiveKeys are the keys of the knobs a running board sets, in order.
func (t Table) LiveKeys() []string {
	var keys []string
	for _, d := range t {
		if d.Live {
			keys = append(keys, d.Key)
		}
	}
	return keys
}

// Validate checks the values given by key (knobs not given are not
// checked): each against its bounds, then the rules between knobs. It
// returns every problem found.
func (t Table) Validate(v map[string]int64) error {
	var errs []error
	for _, d := range t {
		if x, ok := v[d.Key]; ok {
			errs = append(errs, d.Check(x))
		}
	}
	minConns, okMin := v["pool_min"]
	maxConns, okMax := v["pool"]
	if okMin && okMax && minConns > maxConns {
		errs = append(errs, fmt.Errorf("pool_min = %d is above pool = %d: must be at most pool (%d)", minConns, maxConns, maxConns))
	}
	return errors.Join(errs...)
}
