package contract

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"bbslab/commands"
	"bbslab/loadtest/watch"
)

// KnobsPath answers GET with the worker limit and the pool in force and
// sets them on POST ?workers=N&pool=N&pool_min=N.
const KnobsPath = "/admin/knobs"

// knobsWait is how long a POST to KnobsPath waits for its change before
// answering 202; the tuner then polls for at most knobsSettle.
const (
	knobsWait   = 10 * time.Second
	knobsSettle = time.Minute
)

// tuning is what the tuner knows of the board.
var tuning = &watch.Tuning{
	WorkerWait: "worker_wait", WorkersBusy: "workers_busy", WorkersQueued: "workers_queued",
	PoolWait: "pool_wait", PoolInUse: "pool_in_use", PoolWaiting: "pool_waiting",
	CoresBusy: "server_core_busy", MachineIdle: "machine_cpu_idle", CPUWait: "cpu_wait",
	Work:      work,
	KnobsPath: KnobsPath,
	Get:       getKnobs,
	Set:       setKnobs,
}

// work names the command a page URL asks for (AllView without cmd=).
func work(page string) (watch.Work, bool) {
	u, err := url.Parse(page)
	if err != nil {
		return watch.Work{}, false
	}
	name := cmp.Or(u.Query().Get("cmd"), commands.AllView.Name())
	if !slices.ContainsFunc(commands.Views, func(v *commands.View) bool { return v.Name() == name }) {
		return watch.Work{}, false
	}
	return watch.Work{Name: name,
		Queries:  watch.Stat{Name: name + " queries per request", Path: "commands." + name + ".queries", Kind: watch.Counter, PerRequest: true, Scale: 1, Unit: "queries/request"},
		Database: watch.Stat{Name: name + " database ms per request", Path: "commands." + name + ".db_seconds_total", Kind: watch.Counter, PerRequest: true, Scale: 1000, Unit: "ms/request"},
	}, true
}

// knobsJSON is the part of /admin/knobs's answer the tuner reads.
type knobsJSON struct {
	Workers     int        `json:"workers"`
	Pool        int        `json:"pool"`
	PoolMin     int        `json:"pool_min"`
	ChangedAt   *time.Time `json:"changed_at"`
	EffectiveAt *time.Time `json:"effective_at"`
	Pending     []string   `json:"pending"`
	Error       string     `json:"error"`
}

func (k knobsJSON) knobs() watch.Knobs {
	out := watch.Knobs{Workers: k.Workers, Pool: k.Pool, PoolMin: k.PoolMin}
	if out.PoolMin == out.Pool {
		out.PoolMin = 0
	}
	return out
}

// effective reports whether the knobs in force took effect.
func (k knobsJSON) effective() bool {
	return len(k.Pending) == 0 && k.EffectiveAt != nil && (k.ChangedAt == nil || !k.EffectiveAt.Before(*k.ChangedAt))
}

func getKnobs(ctx context.Context, admin string) (watch.Knobs, error) {
	k, _, err := knobsCall(ctx, http.MethodGet, strings.TrimSuffix(admin, "/")+KnobsPath)
	return k.knobs(), err
}

// setKnobs sets the knobs and returns once in force (202: a shrink draining).
func setKnobs(ctx context.Context, admin string, k watch.Knobs) (watch.Knobs, error) {
	base := strings.TrimSuffix(admin, "/") + KnobsPath
	q := url.Values{"workers": {strconv.Itoa(k.Workers)}, "pool": {strconv.Itoa(k.Pool)}, "pool_min": {strconv.Itoa(k.Min())}, "wait": {knobsWait.String()}}
	got, code, err := knobsCall(ctx, http.MethodPost, base+"?"+q.Encode())
	if err != nil {
		return watch.Knobs{}, err
	}
	deadline := time.Now().Add(knobsSettle)
	for code == http.StatusAccepted || !got.effective() {
		if time.Now().After(deadline) {
			return got.knobs(), fmt.Errorf("%s: the change did not take effect within %v: %s", base, knobsSettle, strings.Join(got.Pending, "; "))
		}
		select {
		case <-ctx.Done():
			return got.knobs(), ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if got, code, err = knobsCall(ctx, http.MethodGet, base); err != nil {
			return watch.Knobs{}, err
		}
	}
	return got.knobs(), nil
}

// knobsCall sends one request to the knobs endpoint u; a refusal carries the
// board's reason; a 409 (a knob fixed while running) wraps watch.ErrRestart.
func knobsCall(ctx context.Context, method, u string) (knobsJSON, int, error) {
	var k knobsJSON
	resp, b, jerr, err := adminCall(ctx, knobsWait+10*time.Second, method, u, KnobsPath, &k)
	switch {
	case resp == nil:
		return knobsJSON{}, 0, err
	case err != nil:
		return k, resp.StatusCode, err
	case resp.StatusCode == http.StatusConflict:
		return k, resp.StatusCode, fmt.Errorf("%s %s: %s: %s: %w", method, u, resp.Status, k.Error, watch.ErrRestart)
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted && k.Error != "":
		return k, resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, k.Error)
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted:
		return k, resp.StatusCode, fmt.Errorf("%s %s: %s", method, u, resp.Status)
	case jerr != nil || k.Workers == 0 && k.Pool == 0:
		return k, resp.StatusCode, fmt.Errorf("%s %s: the answer holds no knobs: %.80q", method, u, b)
	}
	return k, resp.StatusCode, nil
}
