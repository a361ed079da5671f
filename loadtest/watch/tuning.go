package watch

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"strings"
)

// ErrRestart is wrapped by Tuning.Set's error when the target cannot
// change a knob while it runs (the board's 409): only starting it again
// with the knob sets it.
var ErrRestart = errors.New("the target cannot change this knob while it runs; it must be started again with it")

// Knobs are the settings a tuner turns on a running target: its worker
// limit and its connection pool's maximum and minimum (PoolMin 0: the
// minimum is the maximum, min = max).
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
// of the target's stats (by Stat.Name, from Target.Stats) play which part
// in naming what limits it, what work a request asks for, and how its
// knobs are read and set while it runs. The target's package fills it
// (for the board, package contract); the tuner names nothing of the
// target. An empty name: the target has no such reading, and the tuner
// says so instead of guessing.
type Tuning struct {
	// WorkerWait is the time per request spent waiting for a worker (ms);
	// WorkersBusy and WorkersQueued the mean number of workers busy and of
	// requests queued for one over the span.
	WorkerWait, WorkersBusy, WorkersQueued string
	// PoolWait is the time per request spent waiting for a connection
	// (ms); PoolInUse and PoolWaiting the mean number of connections in use
	// and of acquires waiting.
	PoolWait, PoolInUse, PoolWaiting string
	// CoresBusy is the target's own cores' busy share (%); MachineIdle the
	// machine's idle share (%); CPUWait the time per request its work was
	// runnable and waited for a CPU (ms).
	CoresBusy, MachineIdle, CPUWait string
	// Work returns, for a request URL, the name of the work it asks for
	// (for the board, its command) and two stats of that work: the
	// queries per request and the database's time per request (ms). ok is
	// false when the URL names no work the target counts.
	Work func(url string) (w Work, ok bool)
	// KnobsPath is where the knobs are read and set on the target's admin
	// listener, for messages.
	KnobsPath string
	// Get reads the knobs in force on the target whose admin listener is
	// at admin; Set sets k and returns, once the change took effect, the
	// knobs in force. Either's error says why (a knob the target cannot
	// change while it runs, wrapping ErrRestart; a bad value; no answer).
	Get func(ctx context.Context, admin string) (Knobs, error)
	Set func(ctx context.Context, admin string, k Knobs) (Knobs, error)
}

// Work is the work a request asks for, as Tuning.Work names it: its name
// and the stats of its queries per request and of the database's time
// per request.
type Work struct {
	Name              string
	Queries, Database Stat
}
