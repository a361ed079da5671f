package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"bbslab/loadtest/watch"
)

// The admin listener's paths a calibration uses (docs/admin.md).
const (
	// statsPath is the board's stats JSON, which the watcher reads.
	statsPath = "/admin/stats"
	// DistancePath answers GET with each SQL statement's wait in force
	// and sets it on POST ?db_latency=DURATION, while the board runs.
	DistancePath = "/admin/distance"
	// DistanceVar is the wait's query parameter at DistancePath, the
	// board's knob db_latency (-db-latency at start-up).
	DistanceVar = "db_latency"
)

// processCPU is the board's own CPU over exactly a run's measured span: the
// rate of its process CPU-seconds counter, x 100, in % of one core. A
// calibration divides it by the throughput for the CPU per request and
// takes its value with no wait as the board's capacity; the gauge of
// stats' server_cpu covers the sampler's last second instead.
var processCPU = watch.Stat{Name: "server CPU", Path: "runtime.process_cpu_seconds_total", Metric: "process_cpu_seconds_total", Kind: watch.Counter, Scale: 100, Unit: "% of a core"}

// Distance reads the statements' wait in force from the board's admin
// listener at admin (e.g. http://127.0.0.1:6060).
func Distance(ctx context.Context, admin string) (time.Duration, error) {
	return distance(ctx, http.MethodGet, strings.TrimSuffix(admin, "/")+DistancePath)
}

// SetDistance sets the statements' wait on the running board (the jitter
// is kept) and returns the wait the board reports in force.
func SetDistance(ctx context.Context, admin string, wait time.Duration) (time.Duration, error) {
	u := strings.TrimSuffix(admin, "/") + DistancePath + "?" + DistanceVar + "=" + url.QueryEscape(wait.String())
	return distance(ctx, http.MethodPost, u)
}

// distance sends one request to DistancePath and decodes the wait it
// answers with; its errors say whether the board did not answer or has no
// such endpoint.
func distance(ctx context.Context, method, u string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, u, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("the board's admin listener does not answer: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var body struct {
		DBLatency string `json:"db_latency"`
		Error     string `json:"error"`
	}
	jerr := json.Unmarshal(b, &body)
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return 0, fmt.Errorf("%s %s: 404: no %s here (not the board's admin listener, or a board built before it)", method, u, DistancePath)
	case resp.StatusCode != http.StatusOK && body.Error != "":
		return 0, fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, body.Error)
	case resp.StatusCode != http.StatusOK:
		return 0, fmt.Errorf("%s %s: %s", method, u, resp.Status)
	case jerr != nil || body.DBLatency == "":
		return 0, fmt.Errorf("%s %s: the answer holds no %s: %.80q", method, u, DistanceVar, b)
	}
	d, err := time.ParseDuration(body.DBLatency)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %s: %w", method, u, DistanceVar, err)
	}
	return d, nil
}
