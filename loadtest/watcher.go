package loadtest

import (
	"context"
	"encoding/json"
	"time"
)

// A Watcher watches the load target while a run goes on: package watch
// polls a stats JSON and takes profiles. The engine knows nothing of the
// target; it starts a Watcher's Watch with the run, says when the measured
// window ends and keeps what Finish returns in the Result. What the watcher
// saw is its own to define: the engine holds it as JSON, written in the
// result where it always was ("server", "profiles") and read back as it
// was written.
type Watcher interface {
	// Start begins watching a run of s whose measured window opens at
	// warmEnd; the Watch ends its goroutines when ctx ends or Finish is
	// called.
	Start(ctx context.Context, s Settings, warmEnd time.Time) Watch
}

// A Watch is one run's watching, started by a Watcher.
type Watch interface {
	// EndWindow says the measured window is over: what covers the window
	// (stats) stops; the drain after it is not the window's.
	EndWindow()
	// Finish stops watching and returns what was seen; successes and
	// seconds are the run's measured successes and window length, for
	// per-request and per-second figures.
	Finish(successes int64, seconds float64) Watched
}

// Watched is what a Watch saw over one run.
type Watched struct {
	// Server and Profiles are the watcher's own figures as JSON, which the
	// engine keeps in Result.Server and Result.Profiles without looking
	// inside (package watch defines them: watch.Of reads them back); empty
	// when there are none.
	Server, Profiles json.RawMessage
	// Environment holds the target's self-description (opaque JSON objects
	// by key) for Result.Environment.Server.
	Environment map[string]json.RawMessage
	// Warnings are notes for Result.Warnings (failed reads, readings the
	// target does not have, profiles that failed).
	Warnings []string
}
