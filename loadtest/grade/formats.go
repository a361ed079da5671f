package grade

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// A format reads one tool's results file into reports (a sweep gives one
// per step).
type format struct {
	name string
	// is says whether the start of a file looks like this format.
	is   func(head []byte) bool
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
	// generic comes last: the tools' own formats win on their content.
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

// readFile reads a tool's results file in the named format, or in the
// format its content shows when name is empty.
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

// pick chooses the format of b: the named one, or the first whose
// signature the content has.
func pick(b []byte, name string) (format, error) {
	for _, f := range formats {
		if name != "" && f.name == name {
			return f, nil
		}
		if name == "" && f.is(b) {
			return f, nil
		}
	}
	if name != "" {
		return format{}, fmt.Errorf("unknown format %q; known formats: %s", name, FormatNames())
	}
	return format{}, fmt.Errorf("cannot tell the format from the content; known formats: %s (name one with -format)", FormatNames())
}

// firstLine is b's first non-empty line, trimmed.
func firstLine(b []byte) []byte {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			return l
		}
	}
	return nil
}

// eachLine calls f with each line of r that is not blank, trimmed, and
// its number from 1 (lines up to 64 MiB); f's error ends the reading.
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

// firstObject decodes b's first line as a JSON object of the given keys
// (nil when it is not one).
func firstObject(b []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(firstLine(b), &m) != nil {
		return nil
	}
	return m
}

// has says whether m has every key.
func has(m map[string]json.RawMessage, keys ...string) bool {
	if m == nil {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}
