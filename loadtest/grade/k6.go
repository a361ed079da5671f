package grade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// isK6 recognises k6's JSON output: lines with "type" and "metric".
func isK6(b []byte) bool { return has(firstObject(b), "type", "metric", "data") }

// readK6 reads `k6 run --out json=FILE`: of its lines, the Points of the
// metric http_req_duration, each data.time (the sample's time, taken here
// as the request's end), data.value (ms) and data.tags.status ("0" when no
// response). Metric lines and other metrics are skipped.
func readK6(path string, b []byte) ([]*Report, error) {
	r := &Report{Name: path, Format: "k6", Resolution: 0.001}
	var sends []time.Time
	err := eachLine(bytes.NewReader(b), func(n int, line []byte) error {
		var l struct {
			Type   string `json:"type"`
			Metric string `json:"metric"`
			Data   struct {
				Time  time.Time         `json:"time"`
				Value float64           `json:"value"`
				Tags  map[string]string `json:"tags"`
			} `json:"data"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if l.Type != "Point" || l.Metric != "http_req_duration" {
			return nil
		}
		status, err := strconv.Atoi(l.Data.Tags["status"])
		if err != nil {
			return fmt.Errorf("line %d: status tag %q: %v", n, l.Data.Tags["status"], err)
		}
		lat := time.Duration(l.Data.Value * float64(time.Millisecond))
		r.Requests = append(r.Requests, Request{Latency: lat, Status: status})
		sends = append(sends, l.Data.Time.Add(-lat))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(sends) == 0 {
		return nil, fmt.Errorf("no http_req_duration points")
	}
	r.fromSends(sends)
	return []*Report{r}, nil
}
