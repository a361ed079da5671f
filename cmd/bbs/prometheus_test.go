package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	childproc "bbslab/internal/child"
	"bbslab/internal/testenv"
)

// TestPrometheusScrapesUnderLoad starts the board and a real Prometheus
// scraping its /metrics every 500 ms, loads the board for 1 s, and checks
// that the requests Prometheus counted between two scrapes taken while the
// board was at rest (one before the load, one after) agree with the
// board's own /admin/stats request counters read at rest, within 2 %. It
// logs the extrapolated increase() over the run too.
func TestPrometheusScrapesUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus and loads the board for seconds: long; runs without -short")
	}
	promBin, err := exec.LookPath("prometheus")
	testenv.Need(t, err == nil, "prometheus is not on PATH: skipping the scrape test (Debian: apt-get install prometheus)")
	began := time.Now()

	db := filepath.Join(t.TempDir(), "bbs.db")
	s := start(t, "-dsn", db, "-seed-posts", "50", "-pool", "4", "-workers", "4")
	adminURL, err := url.Parse(s.admin)
	if err != nil {
		t.Fatal(err)
	}
	prom := startPrometheus(t, promBin, adminURL.Host)

	// At rest before the load: wait for a scrape that saw the resting
	// counter.
	n0 := restingRequests(t, s.admin)
	rest := time.Now()
	v0, t0 := scrapedAfter(t, prom, rest)

	const clients, span = 4, time.Second // hundreds of requests: enough for 2 %
	var sent atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), span)
	defer cancel()
	var wg sync.WaitGroup
	cmds := []string{"AllView", "OnceGetView", "EachGetView"}
	for i := range clients {
		wg.Go(func() {
			for j := 0; ctx.Err() == nil; j++ {
				req, _ := http.NewRequestWithContext(ctx, "GET", s.board+"?cmd="+cmds[(i+j)%len(cmds)], nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					continue // the span ended mid-request
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				sent.Add(1)
			}
		})
	}
	wg.Wait()

	// At rest after the load.
	n1 := restingRequests(t, s.admin)
	v1, t1 := scrapedAfter(t, prom, time.Now())
	board, scraped := n1-n0, v1-v0
	inc := promQuery(t, prom, fmt.Sprintf("sum(increase(bbs_requests_total[%dms]))", t1.Sub(t0).Milliseconds()), t1)
	t.Logf("%d clients for %v: %d answered; /admin/stats counted %.0f, Prometheus %.0f between its scrapes at rest (%s .. %s), increase() over that span %.1f; test took %v",
		clients, span, sent.Load(), board, scraped, t0.Format("15:04:05.000"), t1.Format("15:04:05.000"), inc, time.Since(began).Round(10*time.Millisecond))
	if board < 100 {
		t.Fatalf("/admin/stats counted %.0f requests under load; want at least 100 for a 2 %% comparison", board)
	}
	if d := math.Abs(scraped-board) / board; d > 0.02 {
		t.Errorf("Prometheus counted %.0f requests, /admin/stats %.0f: %.1f %% apart; want within 2 %%\nprometheus log:\n%s", scraped, board, 100*d, prom.log.String())
	}
}

// promServer is a running Prometheus for a test.
type promServer struct {
	url string
	log *lockedBuffer
}

// startPrometheus starts Prometheus on a free loopback port, scraping the
// admin listener at target every 500 ms, its storage in a temp dir; it is
// stopped at cleanup.
func startPrometheus(t *testing.T, bin, target string) *promServer {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`global:
  scrape_interval: 500ms
  scrape_timeout: 400ms
scrape_configs:
  - job_name: bbs
    static_configs:
      - targets: [%q]
`, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	p := &promServer{url: "http://" + addr, log: &lockedBuffer{}}
	proc, err := childproc.Start(childproc.Spec{
		Argv: []string{bin, "--config.file=" + filepath.Join(dir, "prometheus.yml"),
			"--storage.tsdb.path=" + filepath.Join(dir, "data"), "--web.listen-address=" + addr},
		Stdout: p.log, Stderr: p.log,
	})
	if err != nil {
		t.Fatalf("start prometheus: %v", err)
	}
	t.Cleanup(func() {
		if err := proc.Stop(10 * time.Second); err != nil {
			t.Logf("stop prometheus: %v", err)
		}
	})
	// Generous: Prometheus starts in about a second on an idle machine,
	// and this one is shared.
	if !eventually(30*time.Second, func() bool {
		resp, err := http.Get(p.url + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}) {
		t.Fatalf("prometheus on %s not ready after 30 s; its log:\n%s", addr, p.log.String())
	}
	return p
}

// restingRequests waits until the board's requests counted in
// /admin/stats stop moving and returns their sum over the commands.
func restingRequests(t *testing.T, admin string) float64 {
	t.Helper()
	read := func() float64 {
		var n float64
		for _, cmd := range []string{"AllView", "OnceGetView", "EachGetView"} {
			n += num(adminStats(t, admin), "commands."+cmd+".requests")
		}
		return n
	}
	prev := read()
	for range 100 {
		time.Sleep(50 * time.Millisecond)
		n := read()
		if n == prev {
			return n
		}
		prev = n
	}
	t.Fatalf("/admin/stats requests still moving after 5 s (%v)", prev)
	return 0
}

// scrapedAfter waits until Prometheus holds a scrape of the board taken
// after at, and returns the sum of bbs_requests_total in it with that
// scrape's time.
func scrapedAfter(t *testing.T, p *promServer, at time.Time) (float64, time.Time) {
	t.Helper()
	var ts float64
	// Generous: a scrape is due every 500 ms.
	if !eventually(15*time.Second, func() bool {
		ts = promQueryOK(t, p, "max(timestamp(bbs_requests_total))", time.Now())
		return ts > float64(at.UnixNano())/1e9
	}) {
		t.Fatalf("prometheus has no scrape of the board after %s (last %v); its log:\n%s", at.Format(time.RFC3339Nano), ts, p.log.String())
	}
	when := time.Unix(0, int64(ts*1e9))
	return promQuery(t, p, "sum(bbs_requests_total)", when), when
}

// promQuery evaluates an instant query at a time and returns its single
// value; it fails the test when there is none.
func promQuery(t *testing.T, p *promServer, q string, at time.Time) float64 {
	t.Helper()
	v := promQueryOK(t, p, q, at)
	if math.IsNaN(v) {
		t.Fatalf("query %q at %s: no value; prometheus log:\n%s", q, at.Format(time.RFC3339Nano), p.log.String())
	}
	return v
}

// promQueryOK is promQuery that returns NaN for an empty result.
func promQueryOK(t *testing.T, p *promServer, q string, at time.Time) float64 {
	t.Helper()
	u := p.url + "/api/v1/query?" + url.Values{"query": {q}, "time": {strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', 3, 64)}}.Encode()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("query %q: %v", q, err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
		t.Fatalf("query %q: %s %v %s; prometheus log:\n%s", q, resp.Status, err, r.Error, p.log.String())
	}
	if len(r.Data.Result) == 0 {
		return math.NaN()
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("query %q: value %q: %v", q, s, err)
	}
	return v
}
