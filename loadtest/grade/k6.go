package grade

import (
	"fmt"
	"strconv"
	"time"
)

// isK6 recognises k6's JSON output.
func isK6(b []byte) bool { return has(firstObject(b), "type", "metric", "data") }

// readK6 reads `k6 run --out json=FILE`: http_req_duration Points, each data.time
// (the request's end), data.value (ms) and data.tags.status ("0": no response).
func readK6(path string, b []byte) ([]*Report, error) {
	type line struct {
		Type   string `json:"type"`
		Metric string `json:"metric"`
		Data   struct {
			Time  time.Time         `json:"time"`
			Value float64           `json:"value"`
			Tags  map[string]string `json:"tags"`
		} `json:"data"`
	}
	r := &Report{Name: path, Format: "k6", Resolution: 0.001}
	return readJSONLines(r, b, "no http_req_duration points", func(n int, l line) (*Request, error) {
		if l.Type != "Point" || l.Metric != "http_req_duration" {
			return nil, nil
		}
		status, err := strconv.Atoi(l.Data.Tags["status"])
		if err != nil {
			return nil, fmt.Errorf("line %d: status tag %q: %v", n, l.Data.Tags["status"], err)
		}
		lat := time.Duration(l.Data.Value * float64(time.Millisecond))
		return &Request{Sent: l.Data.Time.Add(-lat), Latency: lat, Status: status}, nil
	})
}
