package grade

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The generic format is one request per row, CSV with a header row or JSON
// lines (docs/grading.md, "The generic format").

// genericUnits are the units a column's suffix names.
var genericUnits = []struct {
	suffix, name string
	d            time.Duration
}{
	{"s", "seconds", time.Second}, {"ms", "milliseconds", time.Millisecond},
	{"us", "microseconds", time.Microsecond}, {"ns", "nanoseconds", time.Nanosecond},
}

// A genericKind is what a column of the generic format holds.
type genericKind int

const (
	colStart   genericKind = iota + 1 // absolute send time
	colOffset                         // send time from the run's start
	colLatency                        // latency
	colStatus
	colBytes
	colError
	colExtra // x_*: carried, not graded
)

// A genericCol is a column's name, kind and unit (0: RFC 3339 start, or a Go duration).
type genericCol struct {
	name string
	kind genericKind
	unit time.Duration
}

// genericColumns lists the names for messages.
const genericColumns = "start or start_unix_s|ms|us|ns, or offset or offset_s|ms|us|ns; latency or latency_s|ms|us|ns; status; optional bytes, error, x_*"

// genericNamed are the columns without a unit.
var genericNamed = map[string]genericKind{"start": colStart, "offset": colOffset, "latency": colLatency, "status": colStatus, "bytes": colBytes, "error": colError}

func parseGenericCol(name string) (genericCol, error) {
	if kind, ok := genericNamed[name]; ok {
		return genericCol{name, kind, 0}, nil
	}
	if strings.HasPrefix(name, "x_") {
		return genericCol{name, colExtra, 0}, nil
	}
	for _, p := range []struct {
		prefix string
		kind   genericKind
	}{{"start_unix_", colStart}, {"offset_", colOffset}, {"latency_", colLatency}} {
		u, ok := strings.CutPrefix(name, p.prefix)
		if !ok {
			continue
		}
		for _, gu := range genericUnits {
			if u == gu.suffix {
				return genericCol{name, p.kind, gu.d}, nil
			}
		}
		return genericCol{}, fmt.Errorf("column %q: unknown unit %q; want %ss, %sms, %sus or %sns", name, u, p.prefix, p.prefix, p.prefix, p.prefix)
	}
	if u, ok := strings.CutPrefix(name, "start_"); ok {
		return genericCol{}, fmt.Errorf("column %q: an absolute send time in a unit is start_unix_%s, an offset from the run's start offset_%s", name, u, u)
	}
	return genericCol{}, fmt.Errorf("unknown column %q; the columns are: %s", name, genericColumns)
}

// A genericSchema is a file's columns, among them its send time and latency.
type genericSchema struct {
	cols          []genericCol
	send, latency genericCol
	extra         []string
}

// newGenericSchema checks a header's names (or the first object's keys).
func newGenericSchema(names []string) (*genericSchema, error) {
	s := &genericSchema{}
	seen := map[string]bool{}
	var sends, lats []string
	status := false
	for _, n := range names {
		c, err := parseGenericCol(n)
		if err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, fmt.Errorf("column %q given twice", n)
		}
		seen[n] = true
		s.cols = append(s.cols, c)
		switch c.kind {
		case colStart, colOffset:
			s.send, sends = c, append(sends, n)
		case colLatency:
			s.latency, lats = c, append(lats, n)
		case colStatus:
			status = true
		case colExtra:
			s.extra = append(s.extra, n)
		}
	}
	switch {
	case len(sends) == 0:
		return nil, fmt.Errorf("no send time: want one column of start (RFC 3339), start_unix_s|ms|us|ns, offset (a Go duration) or offset_s|ms|us|ns")
	case len(sends) > 1:
		return nil, fmt.Errorf("%d send-time columns (%s): give one, an absolute time or an offset from the run's start, not both", len(sends), strings.Join(sends, ", "))
	case len(lats) == 0:
		return nil, fmt.Errorf("no latency: want one column of latency (a Go duration) or latency_s|ms|us|ns")
	case len(lats) > 1:
		return nil, fmt.Errorf("%d latency columns (%s): give one", len(lats), strings.Join(lats, ", "))
	case !status:
		return nil, fmt.Errorf("no status column: want the HTTP status, 0 or empty for no response")
	}
	return s, nil
}

// genericHead is the first line that is not blank or a comment.
func genericHead(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	for _, l := range bytes.Split(b, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 && l[0] != '#' {
			return l
		}
	}
	return nil
}

// genericNames are the header's names or the first object's keys.
func genericNames(head []byte) ([]string, bool) {
	if len(head) > 0 && head[0] == '{' {
		m := firstObject(head)
		return slices.Collect(maps.Keys(m)), m != nil
	}
	rec, err := csv.NewReader(bytes.NewReader(head)).Read()
	if err != nil {
		return nil, false
	}
	for i := range rec {
		rec[i] = strings.TrimSpace(rec[i])
	}
	return rec, true
}

// isGeneric recognises the generic format by a status, a latency and a send time.
func isGeneric(b []byte) bool {
	names, ok := genericNames(genericHead(b))
	if !ok {
		return false
	}
	var status, lat, send bool
	for _, n := range names {
		status = status || n == "status"
		lat = lat || n == "latency" || strings.HasPrefix(n, "latency_")
		send = send || n == "start" || strings.HasPrefix(n, "start_") || n == "offset" || strings.HasPrefix(n, "offset_")
	}
	return status && lat && send
}

// decimalRE is a decimal number, its exponent of at most three digits.
var decimalRE = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,3})?$`)

// errTooLarge is a number beyond 2^62 ns (146 years).
var errTooLarge = errors.New("too large")

// parseAmount reads a decimal number of unit as nanoseconds, rounded
// without float rounding (an epoch in nanoseconds keeps its last digit),
// and its resolution in nanoseconds (12.3 ms: 0.1 ms).
func parseAmount(s string, unit time.Duration) (ns int64, res float64, err error) {
	if !decimalRE.MatchString(s) {
		return 0, 0, fmt.Errorf("not a decimal number")
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, 0, fmt.Errorf("not a decimal number")
	}
	if r.Sign() < 0 {
		return 0, 0, fmt.Errorf("negative")
	}
	r.Mul(r, new(big.Rat).SetInt64(int64(unit)))
	r.Add(r, big.NewRat(1, 2))
	n := new(big.Int).Quo(r.Num(), r.Denom()) // floor(r + 1/2): r is not negative
	if !n.IsInt64() || n.Int64() > 1<<62 {
		return 0, 0, errTooLarge
	}
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	_, frac, _ := strings.Cut(mant, ".")
	e, _ := strconv.Atoi(exp) // 0 when there is none
	return n.Int64(), float64(unit) * math.Pow(10, float64(e-len(frac))), nil
}

// plausible bounds an absolute send time: outside, the unit is wrong.
var plausible = [2]time.Time{time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)}

// parseEpoch reads a Unix epoch time in c's unit, refusing a time outside
// 2000-2099 with the unit that would put it there.
func parseEpoch(c genericCol, s string) (time.Time, error) {
	ns, _, err := parseAmount(s, c.unit)
	if err != nil && err != errTooLarge {
		return time.Time{}, fmt.Errorf("%s %q: %v; want Unix epoch %s", c.name, s, err, unitName(c.unit))
	}
	t := time.Unix(0, ns).UTC()
	if err == nil && !t.Before(plausible[0]) && t.Before(plausible[1]) {
		return t, nil
	}
	is := "is " + t.Format("2006-01-02")
	if err != nil {
		is = "is too large"
	}
	hint := ""
	for _, u := range genericUnits {
		if ns, _, err := parseAmount(s, u.d); err == nil {
			if v := time.Unix(0, ns); !v.Before(plausible[0]) && v.Before(plausible[1]) {
				hint = fmt.Sprintf(" (in %s it is %s: is the column start_unix_%s?)", u.name, v.UTC().Format(time.RFC3339Nano), u.suffix)
			}
		}
	}
	return time.Time{}, fmt.Errorf("%s %q %s, not a time between 2000 and 2099%s", c.name, s, is, hint)
}

// parseLength reads an offset or a latency, not negative, in c's unit or
// as a Go duration, and its resolution in ns.
func parseLength(c genericCol, s string) (time.Duration, float64, error) {
	if c.unit == 0 {
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			return 0, 0, fmt.Errorf("%s %q: want a Go duration such as 12.5ms or 1.2s", c.name, s)
		case d < 0:
			return 0, 0, fmt.Errorf("%s %q: negative; want 0 or more", c.name, s)
		}
		return d, durationRes(s), nil
	}
	ns, res, err := parseAmount(s, c.unit)
	if err != nil {
		return 0, 0, fmt.Errorf("%s %q: %v; want a number of %s, 0 or more", c.name, s, err, unitName(c.unit))
	}
	return time.Duration(ns), res, nil
}

func unitName(d time.Duration) string {
	for _, u := range genericUnits {
		if u.d == d {
			return u.name
		}
	}
	return ""
}

// durationRes is the resolution of a Go duration in ns ("12.5ms": 0.1 ms).
func durationRes(s string) float64 {
	per := map[string]float64{"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}
	i := strings.LastIndexAny(s, "0123456789")
	num, unit := s[:i+1], s[i+1:]
	num = num[strings.LastIndexFunc(num, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })+1:]
	_, frac, _ := strings.Cut(num, ".")
	return per[unit] * math.Pow(10, -float64(len(frac)))
}
