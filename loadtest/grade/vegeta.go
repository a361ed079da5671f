package grade

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// isVegeta recognises `vegeta encode --to json`: one object a line with
// "timestamp" and "latency".
func isVegeta(b []byte) bool { return has(firstObject(b), "timestamp", "latency", "code") }

// readVegeta reads vegeta's JSON results: per line timestamp (the
// request's send, RFC 3339), latency (ns), code (0 when no response),
// bytes_in, bytes_out and error (lib/results.go's Result).
func readVegeta(path string, b []byte) ([]*Report, error) {
	type line struct {
		Timestamp time.Time `json:"timestamp"`
		Latency   int64     `json:"latency"`
		Code      int       `json:"code"`
		Error     string    `json:"error"`
	}
	var ls []line
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
		ls = append(ls, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(ls) == 0 {
		return nil, fmt.Errorf("no results")
	}
	start := ls[0].Timestamp
	for _, l := range ls {
		if l.Timestamp.Before(start) {
			start = l.Timestamp
		}
	}
	r := &Report{Name: path, Format: "vegeta", Start: start, Resolution: 0.000001}
	for _, l := range ls {
		r.Requests = append(r.Requests, Request{At: l.Timestamp.Sub(start), Latency: time.Duration(l.Latency), Status: l.Code})
	}
	r.fromRequests()
	return []*Report{r}, nil
}
