package grade

import (
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
	r := &Report{Name: path, Format: "vegeta", Resolution: 0.000001}
	var sends []time.Time
	err := eachLine(bytes.NewReader(b), func(n int, line []byte) error {
		var l struct {
			Timestamp time.Time `json:"timestamp"`
			Latency   int64     `json:"latency"`
			Code      int       `json:"code"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		r.Requests = append(r.Requests, Request{Latency: time.Duration(l.Latency), Status: l.Code})
		sends = append(sends, l.Timestamp)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(sends) == 0 {
		return nil, fmt.Errorf("no results")
	}
	r.fromSends(sends)
	return []*Report{r}, nil
}
