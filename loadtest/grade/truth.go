package grade

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// TruthVersion is the version of the truth format this package reads.
const TruthVersion = 1

// TruthPath is where a server under test serves its truth, under its admin
// address (-server).
const TruthPath = "/admin/truth"

// A Truth is what the server recorded of a window: every request that
// arrived in it and was served, counted per second and per status, with the
// server-side latency distributions and the stalls it went through. The
// server fills it (GET /admin/truth); this package defines it because the
// grader may not import the server.
type Truth struct {
	Version  int              `json:"version"`
	Window   Window           `json:"window"`
	Requests int64            `json:"requests"`
	Bytes    int64            `json:"bytes"`
	Status   map[string]int64 `json:"status"`
	// Seconds counts the requests by arrival second, every second of the
	// window.
	Seconds []Second `json:"seconds"`
	// ServerMs is from arrival at the listener to the end of the response
	// write; ServiceMs from handler entry to the end of the response write.
	ServerMs  Summary `json:"server_ms"`
	ServiceMs Summary `json:"service_ms"`
	Stalls    []Span  `json:"stalls"`
	// Log says the per-request log is at TruthLogPath; Logged holds it,
	// sorted by arrival, when the grader read it.
	Log    bool     `json:"log"`
	Logged []Logged `json:"-"`
}

// A Window is the span the truth covers; End is zero while it is open.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"-"`
	Open  bool      `json:"open"`
}

// UnmarshalJSON reads a window whose end is empty while it is open.
func (w *Window) UnmarshalJSON(b []byte) error {
	var raw struct {
		Start time.Time `json:"start"`
		End   string    `json:"end"`
		Open  bool      `json:"open"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	w.Start, w.Open = raw.Start, raw.Open
	if raw.End != "" {
		t, err := time.Parse(time.RFC3339Nano, raw.End)
		if err != nil {
			return fmt.Errorf("window end: %w", err)
		}
		w.End = t
	}
	return nil
}

// A Second is one arrival second of the window.
type Second struct {
	T        time.Time        `json:"t"`
	Requests int64            `json:"requests"`
	Status   map[string]int64 `json:"status"`
}

// A Summary is a latency distribution in milliseconds.
type Summary struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
}

// A Span is a stall: from Start to End the server took no work.
type Span struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// decodeTruth reads a truth document, refusing a version it does not know.
func decodeTruth(r io.Reader, from string) (*Truth, error) {
	var t Truth
	if err := json.NewDecoder(r).Decode(&t); err != nil {
		return nil, fmt.Errorf("truth from %s: %w", from, err)
	}
	if t.Version != TruthVersion {
		return nil, fmt.Errorf("truth from %s: version %d not supported (this grader reads version %d)", from, t.Version, TruthVersion)
	}
	return &t, nil
}

// readTruthFile reads the truth saved to a file.
func readTruthFile(path string) (*Truth, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("truth: %w", err)
	}
	defer f.Close()
	return decodeTruth(f, path)
}

// fetchTruth reads the truth from a server's admin address.
func fetchTruth(ctx context.Context, server string) (*Truth, error) {
	u := strings.TrimSuffix(server, "/") + TruthPath
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("truth: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("truth: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("truth: GET %s: %s", u, resp.Status)
	}
	return decodeTruth(resp.Body, u)
}

// served counts the requests that arrived in the seconds overlapping
// [from, to): the server's count for a tool's span. Without per-second
// counts it is the whole window's.
func (t *Truth) served(from, to time.Time) int64 {
	if len(t.Seconds) == 0 || from.IsZero() {
		return t.Requests
	}
	var n int64
	for _, s := range t.Seconds {
		if s.T.Before(to) && s.T.Add(time.Second).After(from) {
			n += s.Requests
		}
	}
	return n
}
