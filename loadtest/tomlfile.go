package loadtest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// DecodeTOML decodes TOML data into v, refusing unknown keys. Its errors
// say what kind of file (scenario, experiment) and which file, and name
// each unknown key with its line, or the line of a malformed value.
// Scenarios and experiments (package experiment) share it.
func DecodeTOML(kind, name string, data []byte, v any) error {
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) {
		keys := make([]string, len(sm.Errors))
		for i, d := range sm.Errors {
			row, _ := d.Position()
			keys[i] = fmt.Sprintf("%q at line %d", strings.Join(d.Key(), "."), row)
		}
		return fmt.Errorf("%s %s: unknown key %s", kind, name, strings.Join(keys, ", "))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("%s %s:%d:%d: %v", kind, name, row, col, de)
	}
	return fmt.Errorf("%s %s: %w", kind, name, err)
}
