package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// DecodeTOML decodes the TOML data of file name into v, over what v
// holds, refusing keys that v does not have. kind says what the file is
// ("config", "scenario", "experiment"). A time.Duration field is written
// as a string such as "5s", as a Duration is. Its errors
// start with kind and name, and name every unknown key with its line
// ("unknown key "pools" at line 2"), or give the line and column of a
// malformed value as name:line:column, with its key when go-toml knows it.
func DecodeTOML(kind, name string, data []byte, v any) error {
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := decodeDurations(dec, v)
	if err == nil {
		return nil
	}
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) {
		keys := make([]string, len(sm.Errors))
		for i, d := range sm.Errors {
			row, _ := d.Position()
			keys[i] = fmt.Sprintf("unknown key %q at line %d", strings.Join(d.Key(), "."), row)
		}
		return fmt.Errorf("%s %s: %s", kind, name, strings.Join(keys, "; "))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		if k := de.Key(); len(k) > 0 {
			return fmt.Errorf("%s %s:%d:%d: key %q: %v", kind, name, row, col, strings.Join(k, "."), de)
		}
		return fmt.Errorf("%s %s:%d:%d: %v", kind, name, row, col, de)
	}
	return fmt.Errorf("%s %s: %w", kind, name, err)
}

// Duration is a time.Duration written as a string such as "5s" or "250ms"
// in TOML and on the command line.
type Duration time.Duration

// String formats d like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// Set parses s as a duration; it makes Duration a flag.Value.
func (d *Duration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 5s or 250ms", s)
	}
	*d = Duration(v)
	return nil
}

// UnmarshalText decodes a TOML string such as "5s".
func (d *Duration) UnmarshalText(b []byte) error { return d.Set(string(b)) }

// MarshalText encodes d as a string such as "5s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }
