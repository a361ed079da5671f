//go:build cgo

// This test serves the board on a real SQLite store (entity/open), which
// needs cgo, with the database at a distance so that every wait is real.

package bbs

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"bbslab/entity"
	"bbslab/entity/open"
)

// TestOneFigurePerWait serves one OnceGetView request on a fresh board
// (SQLite, db_latency 2 ms, one worker held by a request that runs no
// command, so that the request also waits in the queue) and reads each of
// its waits from every output that reports it: the X-BBS-* and
// Server-Timing headers, the page's cost line (html) or the JSON answer's
// cost (json), the increase of /admin/stats's counters and of /metrics's,
// the access log and the truth log. Each wait is timed once, so every
// output gives the same figure: exactly, to the nanosecond, where it
// carries nanoseconds (the JSON cost in float milliseconds; the counters,
// the access log and the truth log in float seconds or RFC 3339
// nanoseconds, rounded to the nanosecond), and that figure formatted as
// %.3f milliseconds where the output rounds to the microsecond
// (Server-Timing and the cost line).
func TestOneFigurePerWait(t *testing.T) {
	for _, format := range []string{"html", "json"} {
		t.Run(format, func(t *testing.T) { oneFigurePerWait(t, format) })
	}
}

func oneFigurePerWait(t *testing.T, format string) {
	const lat = 2 * time.Millisecond
	const n = 5
	ctx := context.Background()
	st, err := open.Store(ctx, entity.Options{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "waits.db"),
		Pool: 2, SeedPosts: 20, Distance: entity.Distance{Latency: lat}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var access syncBuffer
	s := New(Options{Store: st, Workers: 1, Queue: 4, QueueTimeout: time.Minute, AccessLog: &access, DBName: "sqlite"})
	s.SetReady(true)
	pub, adm := httptest.NewServer(s.Handler()), httptest.NewServer(s.AdminHandler())
	t.Cleanup(pub.Close)
	t.Cleanup(adm.Close)
	if resp, body := do(t, mustRequest(t, http.MethodPost, adm.URL+"/admin/truth/start?log=1")); resp.StatusCode != 200 {
		t.Fatalf("truth start: %d %s", resp.StatusCode, body)
	}
	stats0, metrics0 := adminStatsMap(t, adm.URL), metricLines(t, adm.URL)

	// The holder keeps the one worker 200 ms and runs no command (an
	// injected status): the measured request waits in the queue, and the
	// database's figures are the measured request's alone.
	held := make(chan int)
	go func() {
		resp, err := http.Get(pub.URL + "/bbs?cmd=AllView&delay=200ms&status=503")
		if err != nil {
			held <- 0
			return
		}
		resp.Body.Close()
		held <- resp.StatusCode
	}()
	waitUntil(t, "the holder to take the worker", func() bool { return s.limit.stats().Busy == 1 })
	resp, body := get(t, pub.URL+"/bbs?cmd=OnceGetView&n="+strconv.Itoa(n)+"&format="+format)
	if code := <-held; code != http.StatusServiceUnavailable {
		t.Fatalf("holder: status %d; want its injected 503", code)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("OnceGetView: %d %s", resp.StatusCode, body)
	}

	// observe reports the request just after its response is written:
	// wait for the metrics, the access log and the truth log to have it.
	var metrics1 string
	waitUntil(t, "the request in /metrics", func() bool {
		metrics1 = metricLines(t, adm.URL)
		v, _ := metricValue(t, metrics1, `bbs_request_duration_seconds_count{command="OnceGetView"}`)
		return v == 1
	})
	stats1 := adminStatsMap(t, adm.URL)
	waitUntil(t, "two access log lines", func() bool { return strings.Count(access.String(), "\n") == 2 })
	var truthLog string
	waitUntil(t, "two truth log lines", func() bool {
		_, truthLog = get(t, adm.URL+"/admin/truth/log")
		return strings.Count(truthLog, "\n") == 2
	})

	// The figures, in nanoseconds, as /admin/stats's per-command counters
	// grew by them.
	cmdStat := func(key string) time.Duration {
		return seconds(statNum(t, stats1, "commands.OnceGetView."+key) - statNum(t, stats0, "commands.OnceGetView."+key))
	}
	queue := seconds(statNum(t, stats1, "workers.wait_seconds_total") - statNum(t, stats0, "workers.wait_seconds_total"))
	acquire, sql, net := cmdStat("acquire_wait_seconds_total"), cmdStat("db_seconds_total"), cmdStat("network_wait_seconds_total")
	if queue < 100*time.Millisecond || acquire <= 0 || net < n*lat || sql < net {
		t.Fatalf("queue %v, acquire %v, db %v, net %v; want a queue wait of the holder's 200 ms, an acquire, and %d statements of at least %v each within db",
			queue, acquire, sql, net, n, lat)
	}

	same := func(wait, output string, got, want time.Duration) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %s = %v; the one figure is %v", wait, output, got, want)
		}
	}
	metric := func(series string) time.Duration {
		t.Helper()
		v0, ok0 := metricValue(t, metrics0, series)
		v1, ok1 := metricValue(t, metrics1, series)
		if !ok0 || !ok1 {
			t.Fatalf("/metrics lacks %s", series)
		}
		return seconds(v1 - v0)
	}
	pool := func(key string) time.Duration {
		return seconds(statNum(t, stats1, "db_pool."+key) - statNum(t, stats0, "db_pool."+key))
	}
	same("queue", "/metrics bbs_worker_queue_wait_seconds_sum", metric("bbs_worker_queue_wait_seconds_sum"), queue)
	same("acquire", "/admin/stats db_pool.acquire_wait_seconds_total", pool("acquire_wait_seconds_total"), acquire)
	same("acquire", "/metrics bbs_db_acquire_wait_seconds_total", metric("bbs_db_acquire_wait_seconds_total"), acquire)
	same("acquire", "/metrics bbs_db_acquire_duration_seconds_sum", metric("bbs_db_acquire_duration_seconds_sum"), acquire)
	same("db", "/admin/stats db_pool.sql_seconds_total", pool("sql_seconds_total"), sql)
	same("net", "/admin/stats db_pool.network_wait_seconds_total", pool("network_wait_seconds_total"), net)
	same("net", "/metrics bbs_db_network_wait_seconds_total", metric("bbs_db_network_wait_seconds_total"), net)

	// The counts: headers, stats and metrics.
	q, a := counts(resp)
	wantCounts := fmt.Sprintf("%d %d", n, 1)
	for _, c := range []struct {
		output string
		got    string
	}{
		{"X-BBS-Queries, X-BBS-Acquires", q + " " + a},
		{"/admin/stats commands.OnceGetView queries, acquires", fmt.Sprintf("%.0f %.0f",
			statNum(t, stats1, "commands.OnceGetView.queries")-statNum(t, stats0, "commands.OnceGetView.queries"),
			statNum(t, stats1, "commands.OnceGetView.acquires")-statNum(t, stats0, "commands.OnceGetView.acquires"))},
		{"/metrics bbs_db_queries_total, bbs_db_acquires_total", fmt.Sprintf("%.0f %.0f",
			metric(`bbs_db_queries_total{command="OnceGetView"}`).Seconds(), metric("bbs_db_acquires_total").Seconds())},
	} {
		if c.got != wantCounts {
			t.Errorf("queries and acquires: %s = %s; want %s", c.output, c.got, wantCounts)
		}
	}

	// Server-Timing and the page's cost line round to the microsecond;
	// the JSON answer's cost carries the nanoseconds.
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/1e6) }
	timing := timings(t, resp.Header.Get("Server-Timing"))
	for _, w := range []struct {
		name string
		d    time.Duration
	}{{"queue", queue}, {"acquire", acquire}, {"db", sql}, {"net", net}} {
		if timing[w.name] != ms(w.d) {
			t.Errorf("%s: Server-Timing %s ms; the one figure is %v (%s ms)", w.name, timing[w.name], w.d, ms(w.d))
		}
	}
	switch format {
	case "html":
		want := fmt.Sprintf("%d queries on 1 connection, %s ms: queue %s, acquire %s, db %s, net %s",
			n, timing["total"], ms(queue), ms(acquire), ms(sql), ms(net))
		if m := costLine.FindStringSubmatch(body); m == nil || m[1] != want {
			t.Errorf("cost line %q; the figures say %q", m, want)
		}
	case "json":
		var got struct{ Cost *jsonCost }
		if err := json.Unmarshal([]byte(body), &got); err != nil || got.Cost == nil {
			t.Fatalf("JSON answer without its cost (%v): %.300s", err, body)
		}
		c := got.Cost
		msNS := func(v float64) time.Duration { return time.Duration(math.Round(v * 1e6)) }
		same("queue", "JSON cost queue_ms", msNS(c.QueueMS), queue)
		same("acquire", "JSON cost acquire_ms", msNS(c.AcquireMS), acquire)
		same("db", "JSON cost db_ms", msNS(c.DBMS), sql)
		same("net", "JSON cost net_ms", msNS(c.NetMS), net)
		if ms(msNS(c.TotalMS)) != timing["total"] || c.Queries != n || c.Acquires != 1 {
			t.Errorf("JSON cost %+v; want total %s ms as Server-Timing, %d queries on 1 connection", *c, timing["total"], n)
		}
	}

	// The access log's line of the request.
	line := accessLineOf(t, access.String(), "OnceGetView")
	same("queue", "access log queue_wait", seconds(line.QueueWait), queue)
	same("acquire", "access log acquire_wait", seconds(line.AcquireWait), acquire)
	same("db", "access log db_time", seconds(line.DBTime), sql)
	same("net", "access log db_network_wait", seconds(line.NetworkWait), net)

	// The request until its response was written: the metrics' histogram,
	// the access log and the truth record read one start and one end.
	d := metric(`bbs_request_duration_seconds_sum{command="OnceGetView"}`)
	same("request", "access log response_time", seconds(line.ResponseTime), d)
	same("request", "truth log end - start", truthService(t, truthLog, http.StatusOK), d)
	total, err := strconv.ParseFloat(timing["total"], 64)
	if err != nil || time.Duration(total*1e6) > d+time.Microsecond || d < queue+sql {
		t.Errorf("request %v, Server-Timing total %s ms; want the total (taken before rendering) within the request, and the request past queue %v + db %v", d, timing["total"], queue, sql)
	}
}

// seconds turns a count of seconds read from JSON or the metrics text into
// nanoseconds. The board's figures are whole nanoseconds, which a float64
// of seconds carries to far below a nanosecond at these sizes, so the
// rounding recovers them exactly.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// mustRequest builds a request without a body.
func mustRequest(t *testing.T, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// adminStatsMap reads /admin/stats as generic JSON.
func adminStatsMap(t *testing.T, adm string) map[string]any {
	t.Helper()
	resp, body := get(t, adm+"/admin/stats")
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/admin/stats: %d %v", resp.StatusCode, err)
	}
	return m
}

// statNum reads the number at a dotted path of the stats JSON.
func statNum(t *testing.T, m map[string]any, path string) float64 {
	t.Helper()
	var v any = m
	for _, k := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("/admin/stats has no %s", path)
		}
		v = obj[k]
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("/admin/stats %s = %v; want a number", path, v)
	}
	return f
}

// accessLineOf returns the access log's line of the request that ran cmd.
func accessLineOf(t *testing.T, log, cmd string) accessLine {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		var l accessLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("access log line %q: %v", sc.Text(), err)
		}
		if l.Command == cmd {
			return l
		}
	}
	t.Fatalf("access log has no %s line:\n%s", cmd, log)
	return accessLine{}
}

// truthService returns end - start of the truth log's one line with status.
func truthService(t *testing.T, log string, status int) time.Duration {
	t.Helper()
	var found []time.Duration
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var line struct {
			Start, End time.Time
			Status     int
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("truth log line %q: %v", l, err)
		}
		if line.Status == status {
			found = append(found, line.End.Sub(line.Start))
		}
	}
	if len(found) != 1 {
		t.Fatalf("truth log has %d lines with status %d; want 1:\n%s", len(found), status, log)
	}
	return found[0]
}
