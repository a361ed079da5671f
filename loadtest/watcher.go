package loadtest

import (
	"context"
	"encoding/json"
	"time"
)

// A Watcher watches the load target during a run; the Result keeps what it saw as opaque JSON.
type Watcher interface {
	// Start watches a run of s measured from warmEnd until ctx or Finish.
	Start(ctx context.Context, s Settings, warmEnd time.Time) Watch
}

// A Watch is one run's watching, started by a Watcher.
type Watch interface {
	// EndWindow says the measured window is over.
	EndWindow()
	// Finish stops watching and returns what was seen.
	Finish(successes int64, seconds float64) Watched
}

// Watched is what a Watch saw over one run, for the Result.
type Watched struct {
	Server, Profiles json.RawMessage
	Environment      map[string]json.RawMessage
	Warnings         []string
}
