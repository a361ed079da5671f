package resultfile

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"bbslab/loadtest"
)

// Read reads a file of results of any kind the load tool writes or reads:
// a JSON result or sweep, an experiment.json, or a JMeter JTL CSV file
// (by a .jtl or .csv extension or a non-JSON first byte).
func Read(path string) ([]*loadtest.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	first, _ := br.Peek(64)
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".jtl" || ext == ".csv" || !strings.HasPrefix(strings.TrimSpace(string(first)), "{") {
		r, err := readJTL(path, br)
		if err != nil {
			return nil, err
		}
		return []*loadtest.Result{r}, nil
	}
	b, err := io.ReadAll(br)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var head struct {
		Kind string `json:"kind"`
		Tool string `json:"tool"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if head.Tool == "loadtest tune" || head.Tool == "loadtest tunebench" {
		return nil, fmt.Errorf("read %s: %w", path, ErrTunings)
	}
	switch head.Kind {
	case "sweep":
		return readSweep(path, b)
	case "experiment":
		return readExperiment(path, b)
	}
	r, err := loadtest.DecodeResult(path, b)
	if err != nil {
		return nil, err
	}
	return []*loadtest.Result{r}, nil
}

// readSweep reads the runs of a sweep, named after it when unnamed.
func readSweep(path string, b []byte) ([]*loadtest.Result, error) {
	var sf loadtest.SweepFile
	if err := json.Unmarshal(b, &sf); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := loadtest.CheckSchema(path, sf.Schema); err != nil {
		return nil, err
	}
	for _, r := range sf.Runs {
		r.Upgrade(sf.Schema)
		r.Name = cmp.Or(r.Name, sf.Name)
	}
	return sf.Runs, nil
}

// ErrTunings is Read's error for a tuning's file (loadtest tune, tunebench,
// or an experiment of tunings alone).
var ErrTunings = errors.New("a tuning's file (loadtest tune, tunebench or an experiment's [tune]): its steps are summaries over repeats, not load results; its figures are in the file itself (loadtest/SCHEMA.md, \"Tuning\") and in an experiment's report.md")

// readExperiment reads each point's result of an experiment.json, named after its run.
func readExperiment(path string, b []byte) ([]*loadtest.Result, error) {
	var ef struct {
		Schema int `json:"schema"`
		Runs   []struct {
			Name   string `json:"name"`
			Points []struct {
				Result *loadtest.Result `json:"result"`
			} `json:"points"`
		} `json:"runs"`
		Tunes []json.RawMessage `json:"tunes"`
	}
	if err := json.Unmarshal(b, &ef); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := loadtest.CheckSchema(path, ef.Schema); err != nil {
		return nil, err
	}
	var out []*loadtest.Result
	for _, run := range ef.Runs {
		for _, p := range run.Points {
			if p.Result == nil {
				continue
			}
			p.Result.Upgrade(ef.Schema)
			p.Result.Name = run.Name
			out = append(out, p.Result)
		}
	}
	if len(out) == 0 && len(ef.Tunes) > 0 {
		return nil, fmt.Errorf("read %s: %w", path, ErrTunings)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read %s: an experiment with no measured points", path)
	}
	return out, nil
}
