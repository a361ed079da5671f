package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/machine"
)

// TestOverload drives the server with ten times workers + queue clients
// and checks that it stays up with bounded memory, that rejected requests
// get 503 with Retry-After fast (p99 under 50 ms, the bound the issue
// sets), and that goroutines, HTTP connections and pool connections return
// to their idle counts once the load stops.
func TestOverload(t *testing.T) {
	const workers, queue = 2, 2
	clients := 10 * (workers + queue)
	s := startChild(t, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-dsn", filepath.Join(t.TempDir(), "bbs.db"), "-seed-posts", "200",
		"-workers", fmt.Sprint(workers), "-queue", fmt.Sprint(queue), "-pool", fmt.Sprint(workers), "-queue-timeout", "1s")
	port := s.board[strings.LastIndex(s.board, ":")+1 : strings.LastIndex(s.board, "/")]
	pid := s.cmd.Process.Pid
	idleGoroutines := num(adminStats(t, s.admin), "goroutines")
	rssBefore := rss(pid)

	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var (
		mu        sync.Mutex
		rejected  []time.Duration // as the client saw them
		server    []time.Duration // as the server's Server-Timing says
		ok, other int
		noRetry   int
		wg        sync.WaitGroup
	)
	stop := make(chan struct{})
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				t0 := time.Now()
				resp, err := client.Get(s.board + "?cmd=EachGetView&n=30")
				if err != nil {
					mu.Lock()
					other++
					mu.Unlock()
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				mu.Lock()
				switch resp.StatusCode {
				case 200:
					ok++
				case 503:
					rejected = append(rejected, d)
					server = append(server, serverTotal(resp.Header.Get("Server-Timing")))
					if resp.Header.Get("Retry-After") == "" {
						noRetry++
					}
				default:
					other++
				}
				mu.Unlock()
			}
		}()
	}
	var peak int
	for range 30 { // 3 s of load, memory sampled every 100 ms
		time.Sleep(100 * time.Millisecond)
		peak = max(peak, rss(pid))
	}
	close(stop)
	wg.Wait()

	r := func(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
	p99 := percentile(server, 99)
	t.Logf("%d clients, %d workers, queue %d, 3 s: %d ok, %d rejected with 503; rejection time in the server p50 %v p99 %v max %v, at the client p50 %v p99 %v max %v; %d other; server RSS %d MB idle, %d MB peak",
		clients, workers, queue, ok, len(rejected),
		r(percentile(server, 50)), r(p99), r(percentile(server, 100)),
		r(percentile(rejected, 50)), r(percentile(rejected, 99)), r(percentile(rejected, 100)),
		other, rssBefore>>10, peak>>10)
	if ok == 0 || len(rejected) == 0 {
		t.Fatalf("ok %d, rejected %d: want both under overload", ok, len(rejected))
	}
	if other > 0 || noRetry > 0 {
		t.Errorf("%d answers neither 200 nor 503, %d 503s without Retry-After", other, noRetry)
	}
	if p99 > 50*time.Millisecond {
		t.Errorf("p99 of 503 answers in the server = %v; want under 50 ms", p99)
	}
	if rssBefore > 0 && peak > rssBefore+64<<10 {
		t.Errorf("server RSS grew from %d MB to %d MB under overload", rssBefore>>10, peak>>10)
	}

	// After the load: back to idle.
	tr.CloseIdleConnections()
	var goroutines float64
	var conns int
	if !eventually(5*time.Second, func() bool {
		goroutines, conns = num(adminStats(t, s.admin), "goroutines"), established(t, port)
		return goroutines <= idleGoroutines && conns == 0
	}) {
		t.Errorf("5 s after the load: %v goroutines (idle %v), %d connections to the board", goroutines, idleGoroutines, conns)
	}
	st := adminStats(t, s.admin)
	if num(st, "workers.busy") != 0 || num(st, "workers.queued") != 0 || num(st, "db_pool.in_use") != 0 || num(st, "db_pool.open") != workers {
		t.Errorf("after the load: workers %v, db_pool %v; want none busy or queued, %d connections open and idle", st["workers"], st["db_pool"], workers)
	}
}

// established counts the ESTABLISHED TCP connections on local port port.
// It returns 0 where /proc is missing.
func established(t *testing.T, port string) int {
	p, _ := strconv.Atoi(port)
	s, err := machine.LocalPort(p)
	if err != nil {
		return 0
	}
	return s.States["ESTABLISHED"]
}

// rss reads the resident set size of process pid in KB (0 where /proc is
// missing).
func rss(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int
			fmt.Sscan(v, &kb)
			return kb
		}
	}
	return 0
}

// serverTotal reads total;dur= (milliseconds) from a Server-Timing header.
func serverTotal(h string) time.Duration {
	_, v, ok := strings.Cut(h, "total;dur=")
	if !ok {
		return time.Hour // missing: fails the bound
	}
	var ms float64
	fmt.Sscan(v, &ms)
	return time.Duration(ms * float64(time.Millisecond))
}
