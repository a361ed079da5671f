package grade

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"time"

	"bbslab/loadtest"
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

// readJTL reads JMeter's CSV results (loadtest.JTLHeader's columns, by the
// header when there is one, else in JMeter's default order): per line
// timeStamp (epoch ms, the sample's start), elapsed (ms) and responseCode
// (a number; JMeter's "Non HTTP response code: ..." is no response).
// resultfile.ReadJTL reads the same files into a Result, which keeps no
// per-request send times: the grader needs them.
func readJTL(path string, b []byte) ([]*Report, error) {
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	cols := map[string]int{}
	for i, c := range strings.Split(loadtest.JTLHeader, ",") {
		cols[c] = i
	}
	if len(recs) > 0 && len(recs[0]) > 0 && recs[0][0] == "timeStamp" {
		cols = map[string]int{}
		for i, c := range recs[0] {
			cols[c] = i
		}
		recs = recs[1:]
	}
	ts, el, rc := cols["timeStamp"], cols["elapsed"], cols["responseCode"]
	r := &Report{Name: path, Format: "jtl", Resolution: 1}
	var sends []time.Time
	for i, rec := range recs {
		if len(rec) <= max(ts, el, rc) {
			return nil, fmt.Errorf("sample %d: %d fields", i+1, len(rec))
		}
		start, err1 := strconv.ParseInt(rec[ts], 10, 64)
		elapsed, err2 := strconv.ParseInt(rec[el], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("sample %d: timeStamp %q, elapsed %q: want milliseconds", i+1, rec[ts], rec[el])
		}
		code, _ := strconv.Atoi(rec[rc]) // non-numeric: no HTTP response
		sends = append(sends, time.UnixMilli(start).UTC())
		r.Requests = append(r.Requests, Request{Latency: time.Duration(elapsed) * time.Millisecond, Status: code})
	}
	if len(sends) == 0 {
		return nil, fmt.Errorf("no samples")
	}
	r.fromSends(sends)
	return []*Report{r}, nil
}
