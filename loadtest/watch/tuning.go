package watch

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"strings"
)

// ErrRestart is wrapped by Tuning.Set when a knob needs a restart.
var ErrRestart = errors.New("the target cannot change this knob while it runs; it must be started again with it")

// Knobs are a running target's worker limit and pool maximum and minimum.
type Knobs struct {
	Workers int `json:"workers"`
	Pool    int `json:"pool"`
	PoolMin int `json:"pool_min,omitempty"`
}

// Min is the pool's minimum in force: PoolMin, or Pool when it is 0.
func (k Knobs) Min() int { return cmp.Or(k.PoolMin, k.Pool) }

// ParseKnobs reads a setting written WORKERS/POOL, two positive counts.
func ParseKnobs(s string) (Knobs, error) {
	w, p, ok := strings.Cut(s, "/")
	nw, err1 := strconv.Atoi(strings.TrimSpace(w))
	np, err2 := strconv.Atoi(strings.TrimSpace(p))
	if !ok || err1 != nil || err2 != nil || nw < 1 || np < 1 {
		return Knobs{}, errors.New("want WORKERS/POOL, two positive counts, e.g. 5/5")
	}
	return Knobs{Workers: nw, Pool: np}, nil
}

// Tuning is what a tuner (package loadtest/tune) knows of a target: which
// stats (by Stat.Name, "" for none) tell what limits it, and its knobs.
type Tuning struct {
	// The waits per request (ms) for a worker and a connection, and the mean
	// workers busy, requests queued, connections in use and acquires waiting.
	WorkerWait, WorkersBusy, WorkersQueued string
	PoolWait, PoolInUse, PoolWaiting       string
	// CoresBusy is the target's cores' busy share (%), MachineIdle the
	// machine's idle share (%), CPUWait the wait per request for a CPU (ms).
	CoresBusy, MachineIdle, CPUWait string
	// Work returns the work a request URL asks for, if the target counts it.
	Work func(url string) (w Work, ok bool)
	// KnobsPath is where the knobs are on the admin listener; Get reads the
	// knobs in force, Set sets k and returns them once it took effect.
	KnobsPath string
	Get       func(ctx context.Context, admin string) (Knobs, error)
	Set       func(ctx context.Context, admin string, k Knobs) (Knobs, error)
}

// Work is the work a request asks for: its name and per-request stats.
type Work struct {
	Name              string
	Queries, Database Stat
}
