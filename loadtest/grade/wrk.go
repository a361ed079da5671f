package grade

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// isWrk recognises wrk's summary text.
func isWrk(b []byte) bool {
	s := string(b)
	return strings.Contains(s, "Thread Stats") && strings.Contains(s, " requests in ")
}

var (
	// wrkTime is one of wrk's times, "12.34ms", as time.ParseDuration reads it.
	wrkTime    = `([0-9.]+(?:us|ms|s|m|h))`
	wrkTotal   = regexp.MustCompile(`(\d+) requests in ` + wrkTime)
	wrkPct     = regexp.MustCompile(`(?m)^\s*(50|75|90|99)(?:\.0+)?%\s+` + wrkTime + `\s*$`)
	wrkLatency = regexp.MustCompile(`(?m)^\s*Latency\s+` + wrkTime + `\s+` + wrkTime + `\s+` + wrkTime)
	wrkNon2xx  = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkSocket  = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkConns   = regexp.MustCompile(`(\d+) threads and (\d+) connections`)
)

// wrkSource is where wrk corrects its latency figures (Correction).
const wrkSource = "wrk 4.0 and later corrects for coordinated omission before printing: src/stats.c stats_correct"

// readWrk reads wrk's --latency summary: counts and percentiles, no per-request
// data or times; its percentiles and mean are corrected (Correction).
func readWrk(path string, b []byte) ([]*Report, error) {
	s := string(b)
	m := wrkTotal.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf(`no "N requests in D" line`)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	span, err := time.ParseDuration(m[2])
	if err != nil {
		return nil, err
	}
	r := &Report{Name: path, Format: "wrk", Relative: true, Span: span, Sent: n, Responses: n, Resolution: 0.01,
		Lat: Percentiles{P50: nan, P90: nan, P95: nan, P99: nan, P999: nan, Max: nan}}
	pcts := wrkPct.FindAllStringSubmatch(s, -1)
	if len(pcts) == 0 {
		return nil, fmt.Errorf("no Latency Distribution (run wrk with --latency)")
	}
	at := map[string]*float64{"50": &r.Lat.P50, "90": &r.Lat.P90, "99": &r.Lat.P99}
	for _, p := range pcts {
		d, err := time.ParseDuration(p[2])
		if err != nil {
			return nil, err
		}
		if v := at[p[1]]; v != nil {
			*v = ms(d)
		}
	}
	r.Correction = &Correction{Source: wrkSource, Mean: nan}
	if l := wrkLatency.FindStringSubmatch(s); l != nil {
		if d, err := time.ParseDuration(l[3]); err == nil {
			r.Lat.Max = ms(d)
		}
		if d, err := time.ParseDuration(l[1]); err == nil {
			r.Correction.Mean = ms(d)
		}
	}
	if c := wrkConns.FindStringSubmatch(s); c != nil {
		conns, _ := strconv.Atoi(c[2])
		// As wrk's src/wrk.c, in integer divisions.
		if per := n / int64(max(conns, 1)); conns > 0 && per > 0 {
			r.Correction.Connections = conns
			r.Correction.Interval = time.Duration(span.Microseconds()/per) * time.Microsecond
		}
	}
	if e := wrkNon2xx.FindStringSubmatch(s); e != nil {
		bad, _ := strconv.ParseInt(e[1], 10, 64)
		r.Notes = append(r.Notes, fmt.Sprintf("%d non-2xx or 3xx responses", bad))
	}
	if e := wrkSocket.FindStringSubmatch(s); e != nil {
		for _, f := range e[1:] { // requests lost to socket errors
			lost, _ := strconv.ParseInt(f, 10, 64)
			r.Sent += lost
		}
		r.Notes = append(r.Notes, "socket errors: "+strings.TrimPrefix(e[0], "Socket errors: "))
	}
	r.Notes = append(r.Notes, "wrk's summary has no per-request data and no times: its latency is from the actual send")
	return []*Report{r}, nil
}
