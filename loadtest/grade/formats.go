package grade

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// A format reads one tool's results file into reports (a sweep gives one
// per step), and says whether a file's content looks like it.
type format struct {
	name string
	is   func(b []byte) bool
	read func(name string, b []byte) ([]*Report, error)
}

// formats are the inputs grade reads, in the order detection tries them.
var formats = []format{
	{"loadtest", isLab, readLab},
	{"k6", isK6, readK6},
	{"vegeta", isVegeta, readVegeta},
	{"hey", isHey, readHey},
	{"jtl", isJTL, readJTL},
	{"wrk", isWrk, readWrk},
	{"generic", isGeneric, readGeneric},
}

// FormatNames lists the formats grade knows, for messages and -format.
func FormatNames() string {
	var names []string
	for _, f := range formats {
		names = append(names, f.name)
	}
	return strings.Join(names, ", ")
}

// readFile reads a tool's results file in the named format, or the one its content shows.
func readFile(path, name string) ([]*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := pick(b, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rs, err := f.read(path, b)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", path, f.name, err)
	}
	return rs, nil
}

// pick chooses the named format, or else the first that b looks like.
func pick(b []byte, name string) (format, error) {
	if i := slices.IndexFunc(formats, func(f format) bool { return f.name == name || name == "" && f.is(b) }); i >= 0 {
		return formats[i], nil
	}
	if name != "" {
		return format{}, fmt.Errorf("unknown format %q; known formats: %s", name, FormatNames())
	}
	return format{}, fmt.Errorf("cannot tell the format from the content; known formats: %s (name one with -format)", FormatNames())
}

func firstLine(b []byte) []byte {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			return l
		}
	}
	return nil
}

// eachLine calls f with each non-blank trimmed line of r and its number from 1.
func eachLine(r io.Reader, f func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			if err := f(n, l); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// readJSONLines reads one JSON object a line into r: line gives each object's
// request with its absolute send (nil: skip it); empty is the error for none.
func readJSONLines[T any](r *Report, b []byte, empty string, line func(n int, l T) (*Request, error)) ([]*Report, error) {
	err := eachLine(bytes.NewReader(b), func(n int, text []byte) error {
		var l T
		if err := json.Unmarshal(text, &l); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		q, err := line(n, l)
		if q != nil {
			r.Requests = append(r.Requests, *q)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return fromSends(r, empty)
}

// fromSends places r at its requests' absolute sends; empty is the error for none.
func fromSends(r *Report, empty string) ([]*Report, error) {
	if len(r.Requests) == 0 {
		return nil, errors.New(empty)
	}
	r.fromSends()
	return []*Report{r}, nil
}

// firstObject decodes b's first line as a JSON object (nil when it is not one).
func firstObject(b []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(firstLine(b), &m) != nil {
		return nil
	}
	return m
}

func has(m map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}
