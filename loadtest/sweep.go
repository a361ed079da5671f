package loadtest

import (
	"cmp"
	"context"
	"fmt"
)

// SweepFile is the JSON form of a sweep: one Result per client count.
type SweepFile struct {
	Schema int       `json:"schema"`
	Kind   string    `json:"kind"` // "sweep"
	Name   string    `json:"name,omitempty"`
	Runs   []*Result `json:"runs"`
}

// Sweep does one run per client count by run (Run when nil), stopping when ctx ends or run fails.
func Sweep(ctx context.Context, s Settings, clients []int, run func(context.Context, Settings) (*Result, error)) ([]*Result, error) {
	if len(clients) == 0 {
		return nil, fmt.Errorf("sweep: no client counts")
	}
	if run == nil {
		run = Run
	}
	var runs []*Result
	for _, n := range clients {
		rs := s
		rs.Clients = n
		rs.Name = cmp.Or(rs.Name, fmt.Sprintf("%d clients", n))
		res, err := run(ctx, rs)
		if err != nil {
			return runs, err
		}
		res.Name = s.Name
		runs = append(runs, res)
		if ctx.Err() != nil {
			break
		}
	}
	return runs, nil
}

// WriteSweepJSON writes runs as a SweepFile.
func WriteSweepJSON(path, name string, runs []*Result) error {
	return writeJSON(path, "sweep", SweepFile{Schema: SchemaVersion, Kind: "sweep", Name: name, Runs: runs})
}
