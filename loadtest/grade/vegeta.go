package grade

import (
	"time"
)

// isVegeta recognises `vegeta encode --to json`.
func isVegeta(b []byte) bool { return has(firstObject(b), "timestamp", "latency", "code") }

// readVegeta reads vegeta's JSON results (lib/results.go's Result): per
// line timestamp (the send), latency (ns) and code (0: no response).
func readVegeta(path string, b []byte) ([]*Report, error) {
	type line struct {
		Timestamp time.Time `json:"timestamp"`
		Latency   int64     `json:"latency"`
		Code      int       `json:"code"`
	}
	r := &Report{Name: path, Format: "vegeta", Resolution: 0.000001}
	return readJSONLines(r, b, "no results", func(_ int, l line) (*Request, error) {
		return &Request{Sent: l.Timestamp, Latency: time.Duration(l.Latency), Status: l.Code}, nil
	})
}
