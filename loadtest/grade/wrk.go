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
	wrkTotal   = regexp.MustCompile(`(\d+) requests in ([0-9.]+)(us|ms|s|m|h)`)
	wrkPct     = regexp.MustCompile(`(?m)^\s*(50|75|90|99)(?:\.0+)?%\s+([0-9.]+)(us|ms|s|m|h)\s*$`)
	wrkLatency = regexp.MustCompile(`(?m)^\s*Latency\s+([0-9.]+)(us|ms|s|m|h)\s+([0-9.]+)(us|ms|s|m|h)\s+([0-9.]+)(us|ms|s|m|h)`)
	wrkNon2xx  = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkSocket  = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkConns   = regexp.MustCompile(`(\d+) threads and (\d+) connections`)
)

// wrkSource is where wrk corrects its latency figures (Correction).
const wrkSource = "wrk 4.0 and later corrects for coordinated omission before printing: src/stats.c stats_correct"

// readWrk reads wrk's --latency summary: "N requests in D" (responses
// completed), "T threads and C connections", the Latency Distribution's
// 50/75/90/99 %, the thread stats' Latency avg and max, "Non-2xx or 3xx
// responses" and "Socket errors". It has no per-request data and no
// times: only counts and percentiles are graded. wrk's percentiles and
// mean are of its samples corrected for coordinated omission
// (Correction), its max is a request's.
func readWrk(path string, b []byte) ([]*Report, error) {
	s := string(b)
	m := wrkTotal.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf(`no "N requests in D" line`)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	span, err := wrkDuration(m[2], m[3])
	if err != nil {
		return nil, err
	}
	r := &Report{Name: path, Format: "wrk", Relative: true, Span: span, Sent: n, Responses: n, Resolution: 0.01,
		Lat: Percentiles{P50: nan, P90: nan, P95: nan, P99: nan, P999: nan, Max: nan}}
	pcts := wrkPct.FindAllStringSubmatch(s, -1)
	if len(pcts) == 0 {
		return nil, fmt.Errorf("no Latency Distribution (run wrk with --latency)")
	}
	for _, p := range pcts {
		d, err := wrkDuration(p[2], p[3])
		if err != nil {
			return nil, err
		}
		ms := float64(d) / float64(time.Millisecond)
		switch p[1] {
		case "50":
			r.Lat.P50 = ms
		case "90":
			r.Lat.P90 = ms
		case "99":
			r.Lat.P99 = ms
		}
	}
	r.Correction = &Correction{Source: wrkSource, Mean: nan}
	if l := wrkLatency.FindStringSubmatch(s); l != nil {
		if d, err := wrkDuration(l[5], l[6]); err == nil {
			r.Lat.Max = ms(d)
		}
		if d, err := wrkDuration(l[1], l[2]); err == nil {
			r.Correction.Mean = ms(d)
		}
	}
	if c := wrkConns.FindStringSubmatch(s); c != nil {
		conns, _ := strconv.Atoi(c[2])
		// As wrk's src/wrk.c: runtime_us / (complete / cfg.connections),
		// integer divisions.
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
		var lost int64
		for _, f := range e[1:] {
			v, _ := strconv.ParseInt(f, 10, 64)
			lost += v
		}
		r.Sent += lost
		r.Notes = append(r.Notes, "socket errors: "+strings.TrimPrefix(e[0], "Socket errors: "))
	}
	r.Notes = append(r.Notes, "wrk's summary has no per-request data and no times: its latency is from the actual send")
	return []*Report{r}, nil
}

// wrkDuration reads wrk's "12.34ms".
func wrkDuration(v, unit string) (time.Duration, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("duration %s%s: %w", v, unit, err)
	}
	mult := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	return time.Duration(f * float64(mult)), nil
}
