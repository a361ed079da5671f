package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// ExperimentDisk names a command whose JSON output describes the disk under
// the database (for the board: bbs diskbench -json), run once before the
// runs and kept with the results, because SQLite's commit time is the
// disk's fsync time.
type ExperimentDisk struct {
	Command []string `toml:"command"`
	// Timeout bounds the command (default 2 minutes).
	Timeout Duration `toml:"timeout"`
}

// DiskReport is the part of a disk benchmark's JSON the report shows: a
// list of operations with their times and a grade. Other shapes are kept
// raw and shown as they are.
type DiskReport struct {
	Dir   string `json:"dir"`
	N     int    `json:"n"`
	Stats []struct {
		Op       string `json:"op"`
		AvgNs    int64  `json:"avg_ns"`
		MedianNs int64  `json:"median_ns"`
		MinNs    int64  `json:"min_ns"`
		MaxNs    int64  `json:"max_ns"`
	} `json:"stats"`
	Grade struct {
		Name string `json:"name"`
	} `json:"grade"`
}

// runDisk runs the disk command and returns its JSON output.
func runDisk(ctx context.Context, d ExperimentDisk, dir string, x func(string) string) (json.RawMessage, error) {
	timeout := time.Duration(d.Timeout)
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := resolveCommand(d.Command, dir)
	for i := range argv {
		argv[i] = x(argv[i])
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("disk benchmark %q: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(errb.String()))
	}
	if !json.Valid(out.Bytes()) {
		return nil, fmt.Errorf("disk benchmark %q: its output is not JSON", strings.Join(argv, " "))
	}
	return json.RawMessage(bytes.TrimSpace(out.Bytes())), nil
}

// diskReport decodes a disk benchmark's output when it has the expected
// shape.
func diskReport(raw json.RawMessage) *DiskReport {
	if len(raw) == 0 {
		return nil
	}
	var d DiskReport
	if json.Unmarshal(raw, &d) != nil || len(d.Stats) == 0 {
		return nil
	}
	return &d
}

// diskVerdict summarises the disk benchmark in one sentence.
func diskVerdict(raw json.RawMessage) string {
	d := diskReport(raw)
	if d == nil {
		return ""
	}
	s := fmt.Sprintf("Disk under the database (%s, %d rounds)", d.Dir, d.N)
	if d.Grade.Name != "" {
		s += ": graded " + d.Grade.Name
	}
	for _, st := range d.Stats {
		if st.Op == "fsync" {
			s += fmt.Sprintf("; fsync took %.0f µs on average (max %.0f µs), the floor of an SQLite commit", float64(st.AvgNs)/1e3, float64(st.MaxNs)/1e3)
		}
	}
	return s + "."
}
