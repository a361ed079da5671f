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

// The admin listener's paths (docs/admin.md).
const (
	statsPath = "/admin/stats"
	// DistancePath answers GET with each SQL statement's wait in force
	// and sets it on POST ?db_latency=DURATION.
	DistancePath = "/admin/distance"
	// DistanceVar is the wait's query parameter at DistancePath.
	DistanceVar = "db_latency"
)

// processCPU is the board's own CPU over exactly a run's measured span, in
// % of one core; stats' server_cpu covers the sampler's last second.
var processCPU = watch.Stat{Name: "server CPU", Path: "runtime.process_cpu_seconds_total", Metric: "process_cpu_seconds_total", Kind: watch.Counter, Scale: 100, Unit: "% of a core"}

// Distance reads the statements' wait in force from the board at admin.
func Distance(ctx context.Context, admin string) (time.Duration, error) {
	return distance(ctx, http.MethodGet, strings.TrimSuffix(admin, "/")+DistancePath)
}

// SetDistance sets the statements' wait on the board and returns it in force.
func SetDistance(ctx context.Context, admin string, wait time.Duration) (time.Duration, error) {
	u := strings.TrimSuffix(admin, "/") + DistancePath + "?" + DistanceVar + "=" + url.QueryEscape(wait.String())
	return distance(ctx, http.MethodPost, u)
}

func distance(ctx context.Context, method, u string) (time.Duration, error) {
	var body struct {
		DBLatency string `json:"db_latency"`
		Error     string `json:"error"`
	}
	resp, b, jerr, err := adminCall(ctx, 10*time.Second, method, u, DistancePath, &body)
	switch {
	case err != nil:
		return 0, err
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

// adminCall sends one request to the admin endpoint path at u and decodes
// the answer into v, its error apart (jerr); no answer or a 404 is err.
func adminCall(ctx context.Context, timeout time.Duration, method, u, path string, v any) (resp *http.Response, body []byte, jerr, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the board's admin listener does not answer: %w", err)
	}
	defer resp.Body.Close()
	body, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	jerr = json.Unmarshal(body, v)
	if resp.StatusCode == http.StatusNotFound {
		err = fmt.Errorf("%s %s: 404: no %s here (not the board's admin listener, or a board built before it)", method, u, path)
	}
	return resp, body, jerr, err
}
