package grade

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// heyHeader is the header of `hey -o csv`.
const heyHeader = "response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset"

// isHey recognises hey's CSV by its header.
func isHey(b []byte) bool { return string(firstLine(b)) == heyHeader }

// readHey reads `hey -o csv`: per line response-time (s), status-code and
// offset (s since the run began); successful requests only, Relative.
func readHey(path string, b []byte) ([]*Report, error) {
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("no results")
	}
	r := &Report{Name: path, Format: "hey", Relative: true, Resolution: 0.1}
	for i, rec := range recs[1:] {
		if len(rec) != 8 {
			return nil, fmt.Errorf("line %d: %d fields, want 8 (%s)", i+2, len(rec), heyHeader)
		}
		lat, err1 := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64)
		code, err2 := strconv.Atoi(strings.TrimSpace(rec[6]))
		off, err3 := strconv.ParseFloat(strings.TrimSpace(rec[7]), 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("line %d: want seconds, a status and an offset: %q", i+2, strings.Join(rec, ","))
		}
		r.Requests = append(r.Requests, Request{At: secs(off), Latency: secs(lat), Status: code})
	}
	r.fromRequests()
	r.Notes = append(r.Notes, "hey writes only the requests that got a response: requests that failed are not in the file")
	return []*Report{r}, nil
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
