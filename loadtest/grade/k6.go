package grade

import (
	"bufio"
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
	type line struct {
		Type   string `json:"type"`
		Metric string `json:"metric"`
		Data   struct {
			Time  time.Time         `json:"time"`
			Value float64           `json:"value"`
			Tags  map[string]string `json:"tags"`
		} `json:"data"`
	}
	var reqs []Request
	var ends []time.Time
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if l.Type != "Point" || l.Metric != "http_req_duration" {
			continue
		}
		status, err := strconv.Atoi(l.Data.Tags["status"])
		if err != nil {
			return nil, fmt.Errorf("line %d: status tag %q: %v", n, l.Data.Tags["status"], err)
		}
		lat := time.Duration(l.Data.Value * float64(time.Millisecond))
		reqs = append(reqs, Request{Latency: lat, Status: status})
		ends = append(ends, l.Data.Time)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("no http_req_duration points")
	}
	start := ends[0].Add(-reqs[0].Latency)
	for i := range reqs {
		if s := ends[i].Add(-reqs[i].Latency); s.Before(start) {
			start = s
		}
	}
	for i := range reqs {
		reqs[i].At = ends[i].Add(-reqs[i].Latency).Sub(start)
	}
	r := &Report{Name: path, Format: "k6", Start: start, Requests: reqs, Resolution: 0.001}
	r.fromRequests()
	return []*Report{r}, nil
}
