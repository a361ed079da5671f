package watch

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"bbslab/loadtest"
)

// Seen is what a Watch saw over one run, kept in the Result as JSON.
type Seen struct {
	Server   *ServerStats // nil when none were polled
	Profiles []*ProfileSummary
}

// ServerStats are the load target's own figures over a run's window.
type ServerStats struct {
	URL       string        `json:"url"`
	Format    string        `json:"format,omitempty"` // empty when no read succeeded
	Reads     int           `json:"samples"`
	Failed    int           `json:"failed,omitempty"`
	LastError string        `json:"last_error,omitempty"`
	Values    []ServerValue `json:"values,omitempty"`
}

// A ServerValue is one stat's value over a run, with where it was read.
type ServerValue struct {
	Name     string  `json:"name"`
	Path     string  `json:"path,omitempty"`
	Metric   string  `json:"metric,omitempty"`
	Quantile float64 `json:"quantile,omitempty"`
	Kind     string  `json:"kind"`
	Unit     string  `json:"unit,omitempty"`
	Value    float64 `json:"value"`
}

// Map returns the readings by name (nil for nil s).
func (s *ServerStats) Map() map[string]float64 {
	if s == nil {
		return nil
	}
	m := make(map[string]float64, len(s.Values))
	for _, v := range s.Values {
		m[v.Name] = v.Value
	}
	return m
}

// Value returns the reading called name, if it was found.
func (s *ServerStats) Value(name string) (float64, bool) {
	v, ok := s.Map()[name]
	return v, ok
}

// ProfileSummary is a profile's total, top flat functions and focused buckets.
type ProfileSummary struct {
	Kind    string      `json:"kind"`
	File    string      `json:"file"`
	Total   int64       `json:"total"`
	Top     []FuncShare `json:"top"`
	Buckets []FuncShare `json:"buckets,omitempty"`
	Focused float64     `json:"focused,omitempty"`
}

// FuncShare is a name with its share of samples (0..1).
type FuncShare struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"`
}

// Of returns what the watcher saw in r (nothing when r was not watched).
func Of(r *loadtest.Result) (Seen, error) {
	var s Seen
	if len(r.Server) > 0 {
		if err := json.Unmarshal(r.Server, &s.Server); err != nil {
			return Seen{}, fmt.Errorf("result %q: server: %w", r.Name, err)
		}
	}
	if len(r.Profiles) > 0 {
		if err := json.Unmarshal(r.Profiles, &s.Profiles); err != nil {
			return Seen{}, fmt.Errorf("result %q: profiles: %w", r.Name, err)
		}
	}
	return s, nil
}

// Put stores s in r, as a run's Watch does.
func (s Seen) Put(r *loadtest.Result) error {
	var err error
	r.Server, r.Profiles, err = s.encode()
	return err
}

func (s Seen) encode() (server, profiles json.RawMessage, err error) {
	if s.Server != nil {
		if server, err = json.Marshal(s.Server); err != nil {
			return nil, nil, fmt.Errorf("encode server stats: %w", err)
		}
	}
	if len(s.Profiles) > 0 {
		if profiles, err = json.Marshal(s.Profiles); err != nil {
			return nil, nil, fmt.Errorf("encode profiles: %w", err)
		}
	}
	return server, profiles, nil
}

// Summary returns the lines text.WriteSummary prints of what r saw.
func Summary(r *loadtest.Result) []string {
	s, err := Of(r)
	if err != nil {
		return []string{"server: " + err.Error()}
	}
	var out []string
	if s.Server != nil {
		out = append(out, serverLine(s.Server))
	}
	for _, p := range s.Profiles {
		out = append(out, fmt.Sprintf("profile: %s %s", p.Kind, p.File))
	}
	return out
}

func serverLine(s *ServerStats) string {
	var parts []string
	for _, v := range s.Values {
		unit := v.Unit
		if unit != "" && unit != "%" {
			unit = " " + unit
		}
		parts = append(parts, fmt.Sprintf("%s %.4g%s", v.Name, v.Value, unit))
	}
	line := fmt.Sprintf("server: %s (%d samples", cmp.Or(strings.Join(parts, ", "), "no readings"), s.Reads)
	if s.Failed > 0 {
		line += fmt.Sprintf(", %d failed", s.Failed)
	}
	return line + ")"
}
