package grade

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"bbslab/loadtest/resultfile"
)

// isJTL recognises JMeter's CSV results by a header with timeStamp and
// elapsed, or a first field that is epoch milliseconds.
func isJTL(b []byte) bool {
	l := string(firstLine(b))
	if strings.HasPrefix(l, "timeStamp,") && strings.Contains(l, ",elapsed") {
		return true
	}
	f, _, ok := strings.Cut(l, ",")
	ms, err := strconv.ParseInt(f, 10, 64)
	return ok && err == nil && ms > 1e12 && strings.Count(l, ",") >= 7
}

// readJTL reads JMeter's CSV results: per sample timeStamp (its start, epoch
// ms), elapsed (ms) and responseCode ("Non HTTP response code: ...": none).
func readJTL(path string, b []byte) ([]*Report, error) {
	r := &Report{Name: path, Format: "jtl", Resolution: 1}
	err := resultfile.EachJTLSample(bytes.NewReader(b), nil, func(_ int, rec []string, col func(string) (string, bool)) error {
		n := len(r.Requests) + 1
		ts, ok1 := col("timeStamp")
		el, ok2 := col("elapsed")
		rc, ok3 := col("responseCode")
		if !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("sample %d: %d fields", n, len(rec))
		}
		start, err1 := strconv.ParseInt(ts, 10, 64)
		elapsed, err2 := strconv.ParseInt(el, 10, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("sample %d: timeStamp %q, elapsed %q: want milliseconds", n, ts, el)
		}
		code, _ := strconv.Atoi(rc)
		sent, lat := time.UnixMilli(start).UTC(), time.Duration(elapsed)*time.Millisecond
		r.Requests = append(r.Requests, Request{Sent: sent, Latency: lat, Status: code})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fromSends(r, "no samples")
}
