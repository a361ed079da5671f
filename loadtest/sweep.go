package loadtest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// SweepFile is the JSON form of a sweep: one Result per client count.
type SweepFile struct {
	Schema int       `json:"schema"`
	Kind   string    `json:"kind"` // "sweep"
	Name   string    `json:"name,omitempty"`
	Runs   []*Result `json:"runs"`
}

// Sweep performs one run per client count, in order, each with its own
// warm-up, and returns their results. Each run is done by run (Run when
// nil), given s with Clients set and, when s has no Name, the name
// "N clients" (the label of its JTL lines), and s's StartAt for the
// first step only; once run returns, the result's Name is set back to
// s's. A caller wraps Run in run to give each step its own outputs (a JTL
// file, a profile) or to report each result as it comes. Sweep stops early, returning the runs so far, when
// ctx is cancelled (the interrupted run is included and marked) or when
// run fails (its error is returned as it is).
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
		s.StartAt = time.Time{} // the first step starts at it; the next ones follow at once
		runs = append(runs, res)
		if ctx.Err() != nil {
			break
		}
	}
	return runs, nil
}

// WriteSweepJSON writes runs as a SweepFile.
func WriteSweepJSON(path, name string, runs []*Result) error {
	b, err := json.MarshalIndent(SweepFile{Schema: SchemaVersion, Kind: "sweep", Name: name, Runs: runs}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode sweep: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write sweep: %w", err)
	}
	return nil
}
