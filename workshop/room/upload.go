package room

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/resultfile"
	"bbslab/loadtest/tune"
)

// The kinds of result file the room takes.
const (
	KindExperiment = "experiment" // an experiment's experiment.json
	KindSweep      = "sweep"      // loadtest sweep -out
	KindRun        = "run"        // loadtest run -out
	KindTune       = "tune"       // loadtest tune -out
)

// An upload is one accepted result file as the room reads it.
type upload struct {
	Seq      int
	File     string // the stored file's name in the room's directory
	Laptop   string
	Received time.Time
	Kind     string
	// Name is the experiment's, sweep's or run's name ("" for a run
	// without one, or a tuning).
	Name string
	// Runs are the load results resultfile.Read finds in the file (none
	// for a tuning), without their per-second series, timelines and
	// histograms, which the room does not show.
	Runs []*loadtest.Result
	// Experiment is the whole experiment.json, its points' results and
	// repeats left out (Runs has the results), for its claims, tunings
	// and readings.
	Experiment *outcome.Result
	Tune       *tune.File
}

// errShape marks an upload that is JSON but not a result file the room
// takes: the server answers 422.
var errShape = errors.New("not a result of this lab")

// readUpload reads the result file at path (b is its content, already
// known to be JSON) into an upload. Its errors say what is wrong in words
// for the attendee, with path named as "the upload".
func readUpload(path string, b []byte) (*upload, error) {
	u, err := decodeUpload(path, b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errShape, strings.ReplaceAll(err.Error(), path, "the upload"))
	}
	return u, nil
}

func decodeUpload(path string, b []byte) (*upload, error) {
	var head struct {
		Kind string `json:"kind"`
		Tool string `json:"tool"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("want a JSON object with \"kind\" (run, sweep, experiment) or \"tool\": \"loadtest tune\": %v", err)
	}
	u := &upload{Kind: head.Kind, Name: head.Name}
	switch {
	case head.Tool == "loadtest tune":
		u.Kind = KindTune
		if err := json.Unmarshal(b, &u.Tune); err != nil {
			return nil, fmt.Errorf("a tuning: %v", err)
		}
		if u.Tune.Result == nil || len(u.Tune.Steps) == 0 {
			return nil, errors.New("a tuning without steps")
		}
		return u, nil
	case head.Tool == "loadtest tunebench":
		return nil, errors.New("a tunebench file: the room takes an experiment's experiment.json and the files of loadtest run, sweep and tune -out")
	case head.Kind != KindRun && head.Kind != KindSweep && head.Kind != KindExperiment:
		return nil, fmt.Errorf("kind %q: want %q, %q or %q (or a tuning, \"tool\": \"loadtest tune\")", head.Kind, KindRun, KindSweep, KindExperiment)
	}
	runs, err := resultfile.Read(path)
	if err != nil && !(head.Kind == KindExperiment && errors.Is(err, resultfile.ErrTunings)) {
		return nil, err
	}
	for _, r := range runs {
		if r.Total.Clients < 1 {
			return nil, fmt.Errorf("run %q: %d clients", r.Name, r.Total.Clients)
		}
		r.Series, r.Timeline, r.Labels, r.Total.Histogram = nil, nil, nil, nil
	}
	u.Runs = runs
	if head.Kind != KindExperiment {
		return u, nil
	}
	if err := json.Unmarshal(b, &u.Experiment); err != nil {
		return nil, err
	}
	for _, run := range u.Experiment.Runs {
		for _, p := range run.Points {
			p.Result, p.Repeats = nil, nil
		}
	}
	return u, nil
}

// readFile reads a stored upload again (Open).
func readFile(path string) (*upload, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("%s: not JSON", path)
	}
	return readUpload(path, b)
}

// title is the upload in a few words, e.g. "experiment article".
func (u *upload) title() string {
	switch {
	case u.Kind == KindTune:
		return "tuning"
	case u.Name == "":
		return u.Kind
	}
	return u.Kind + " " + u.Name
}
