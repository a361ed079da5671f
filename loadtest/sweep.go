package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
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
		if rs.Name == "" {
			rs.Name = fmt.Sprintf("%d clients", n)
		}
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

// A Column is one server figure of the sweep table: Value's figure of a
// run, ok false when the run lacks it, under the header Header, printed
// with the fmt verb Format (default "%.3f"). Package watch makes them
// (watch.Columns): the engine does not read Result.Server itself.
type Column struct {
	Header, Format string
	Value          func(*Result) (v float64, ok bool)
}

// WriteSweepTable writes one line per run, like the article's tables:
// clients, throughput, ideal throughput (clients/think), mean, p50, p95, p99,
// errors and the generator's CPU; when runs have server stats, also the
// server columns given (the target's package says which: for the board,
// its CPU, worker queue and waits per request).
func WriteSweepTable(w io.Writer, runs []*Result, server []Column) error {
	withServer := false
	for _, r := range runs {
		withServer = withServer || len(r.Server) > 0
	}
	withServer = withServer && len(server) > 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "clients\tthroughput/s\tideal/s\tmean ms\tp50 ms\tp95 ms\tp99 ms\tp99.9 ms\terrors\tgen cpu %\t"
	if withServer {
		for _, c := range server {
			head += c.Header + "\t"
		}
	}
	fmt.Fprintln(tw, head+"note\t")
	for _, r := range runs {
		ideal := "-"
		if s := r.Settings; s.Think > 0 && s.Model != ModelOpen {
			ideal = fmt.Sprintf("%.1f", float64(r.Total.Clients)/s.Think.Seconds())
		}
		note := ""
		if r.Cost.Bottleneck {
			note = "client may be the bottleneck"
		}
		if r.Interrupted {
			note = strings.TrimSpace(note + " interrupted")
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%s\t", r.Total.Clients, r.Total.Throughput, ideal,
			r.Total.MeanMs, r.Total.P50Ms, r.Total.P95Ms, r.Total.P99Ms, r.Total.P999Ms, r.Total.Errors, r.Cost.CPUText("%.1f"))
		if withServer {
			for _, c := range server {
				if v, ok := c.Value(r); ok {
					f := c.Format
					if f == "" {
						f = "%.3f"
					}
					fmt.Fprintf(tw, f+"\t", v)
				} else {
					fmt.Fprint(tw, "-\t")
				}
			}
		}
		fmt.Fprintf(tw, "%s\t\n", note)
	}
	return tw.Flush()
}
