package experiment

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/felixge/fgprof"

	"bbslab/loadtest/watch"
)

// fakeBoard is a tiny server that keeps the board's HTTP contract, for
// experiment tests: /bbs with the three commands, /readyz, /admin/reset,
// /admin/stats and the profile endpoints. Its mode breaks one rule:
// "differ" (OnceGetView reads other posts), "noescape" (the page shows
// messages raw), "storebad" (stores bad input), "neverready", and for the
// count headers "allview+1" (AllView reports one query too many),
// "nomiss" (the post-by-post commands leave out the lookup that found
// nothing on a board with fewer posts than asked for), "each-1" (EachGetView
// reports one acquire too few). Mode "sim" simulates the article's
// server for calibration: five workers, each request holding one for
// simCPU of "CPU" (counted in cpu_seconds_total, though slept) and the
// wait /admin/distance sets. With FAKE_CONTROL naming a file, the tests
// set what its readings say as the experiment goes (control).
type fakeBoard struct {
	mode     string
	mu       sync.Mutex
	posts    []string // oldest first
	requests atomic.Int64
	busy     atomic.Int64

	workers chan struct{}
	wait    atomic.Int64 // ns, set by POST /admin/distance?db_latency=
	cpuNs   atomic.Int64

	// What the control file sets: the CPU each request counts (ns; 0:
	// none, or simCPU in mode "sim"), and the rates, in % of one core, at
	// which other work and the hypervisor take the board's core, whose
	// counters control integrates.
	cpuPerRequest atomic.Int64
	interference  atomic.Int64 // ns of the core's time taken so far
	steal         atomic.Int64
}

// simCPU is a simulated request's CPU time in mode "sim".
const simCPU = 2 * time.Millisecond

func newFakeBoard(mode string) *fakeBoard {
	b := &fakeBoard{mode: mode, workers: make(chan struct{}, 5)}
	b.reset(50)
	return b
}

func (b *fakeBoard) reset(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.posts = b.posts[:0]
	for i := 1; i <= n; i++ {
		b.posts = append(b.posts, fmt.Sprintf("seed post %d", i))
	}
}

func (b *fakeBoard) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/bbs", b.board)
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if b.mode == "neverready" {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("POST /admin/reset", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("posts"))
		if err != nil {
			n = 50
		}
		b.reset(n)
		fmt.Fprintf(w, `{"posts": %d}`, n)
	})
	mux.HandleFunc("POST /admin/distance", func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("db_latency"))
		if err != nil {
			http.Error(w, "db_latency: "+err.Error(), http.StatusBadRequest)
			return
		}
		b.wait.Store(int64(d))
		fmt.Fprintf(w, `{"db_latency": %q}`, d)
	})
	mux.HandleFunc("/admin/stats", func(w http.ResponseWriter, r *http.Request) {
		// database, host and config are what the board names its
		// environment by (copied whole into the results).
		fmt.Fprintf(w, `{"workers": {"busy": %d, "wait_seconds_total": %g}, "commands": {"AllView": {"requests": %d}},
			"cpu_seconds_total": %g, "database": {"kind": "fake", "server_version": "9.9"}, "config": {"mode": %q},
			"machine": {"own_cpus": {"interference_seconds_total": %g, "steal_seconds_total": %g}}}`,
			b.busy.Load(), float64(b.requests.Load())*0.001, b.requests.Load(), time.Duration(b.cpuNs.Load()).Seconds(), b.mode,
			time.Duration(b.interference.Load()).Seconds(), time.Duration(b.steal.Load()).Seconds())
	})
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.Handle("/debug/fgprof", fgprof.Handler())
	return mux
}

func (b *fakeBoard) board(w http.ResponseWriter, r *http.Request) {
	b.requests.Add(1)
	b.busy.Add(1)
	defer b.busy.Add(-1)
	b.work()
	r.ParseForm()
	cmd := r.Form.Get("cmd")
	if cmd == "" {
		cmd = "AllView"
	}
	n := 30
	if v := r.Form.Get("n"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > 500 {
			if b.mode != "storebad" {
				http.Error(w, "bad n", 400)
				return
			}
		}
	}
	if cmd != "AllView" && cmd != "OnceGetView" && cmd != "EachGetView" {
		http.Error(w, "bad cmd", 400)
		return
	}
	queries, acquires := 0, 0
	b.mu.Lock()
	if msg, ok := r.Form["message"]; ok {
		bad := len(r.Form.Get("name")) > 64 || len(msg[0]) == 0
		for _, c := range msg[0] {
			if c < 0x20 && c != '\n' && c != '\t' {
				bad = true
			}
		}
		if bad && b.mode != "storebad" {
			b.mu.Unlock()
			http.Error(w, "bad input", 400)
			return
		}
		b.posts = append(b.posts, msg[0])
		queries++
		acquires++
		if bad {
			b.mu.Unlock()
			http.Error(w, "bad input", 400)
			return
		}
	}
	var out []map[string]any
	for i := len(b.posts) - 1; i >= 0 && len(out) < n; i-- {
		m := b.posts[i]
		if b.mode == "differ" && cmd == "OnceGetView" {
			m += " (other)"
		}
		out = append(out, map[string]any{"no": i + 1, "name": "x", "message": m, "created_at": "2002-04-01T09:00:00Z"})
	}
	b.mu.Unlock()
	// As the board's commands count: the post-by-post reads end with a
	// lookup that finds nothing when the board holds fewer than n posts.
	miss := 0
	if len(out) < n && b.mode != "nomiss" {
		miss = 1
	}
	switch cmd {
	case "AllView":
		queries, acquires = queries+1, acquires+1
		if b.mode == "allview+1" {
			queries++
		}
	case "OnceGetView":
		queries, acquires = queries+len(out)+miss, acquires+1
	case "EachGetView":
		queries, acquires = queries+len(out)+miss, acquires+len(out)+miss
		if b.mode == "each-1" {
			acquires--
		}
	}
	w.Header().Set("X-BBS-Queries", strconv.Itoa(queries))
	w.Header().Set("X-BBS-Acquires", strconv.Itoa(acquires))
	if r.Form.Get("format") == "json" {
		json.NewEncoder(w).Encode(map[string]any{"command": cmd, "posts": out})
		return
	}
	fmt.Fprint(w, "<html><body><ol>")
	for _, p := range out {
		m := p["message"].(string)
		if b.mode != "noescape" {
			m = html.EscapeString(m)
		}
		fmt.Fprintf(w, "<li>%s</li>", m)
	}
	fmt.Fprint(w, "</ol></body></html>")
}

// work counts a request's CPU (the control file's, or in mode "sim"
// simCPU) and, in mode "sim", holds one of five workers for it and the
// wait.
func (b *fakeBoard) work() {
	cpu := time.Duration(b.cpuPerRequest.Load())
	if b.mode == "sim" {
		if cpu == 0 {
			cpu = simCPU
		}
		b.workers <- struct{}{}
		time.Sleep(cpu + time.Duration(b.wait.Load()))
		<-b.workers
	}
	b.cpuNs.Add(int64(cpu))
}

// TestFakeBoardProcess is not a test: run as a child process with
// FAKE_BOARD_MODE set, it serves the fake board on the -addr and
// -admin-addr given after "--" until it gets SIGTERM.
func TestFakeBoardProcess(t *testing.T) {
	mode, ok := os.LookupEnv("FAKE_BOARD_MODE")
	if !ok {
		t.Skip("helper process for the experiment tests")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "")
	admin := fs.String("admin-addr", "127.0.0.1:0", "")
	wait := fs.Duration("wait", 0, "mode sim: the wait of each request, as /admin/distance sets it")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if dir := os.Getenv("FAKE_BOARD_DIR"); dir != "" {
		// As the board opens its SQLite file in {{dir}}, from the
		// experiment file's directory.
		if err := os.WriteFile(filepath.Join(dir, "fake.db"), nil, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	b := newFakeBoard(mode)
	b.wait.Store(int64(*wait))
	if path := os.Getenv("FAKE_CONTROL"); path != "" {
		go b.control(path)
	}
	errc := make(chan error, 2)
	for _, a := range []string{*addr, *admin} {
		l, err := net.Listen("tcp", a)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		go func() { errc <- http.Serve(l, b.handler()) }()
	}
	// The tests of pinning read this line in the run's server.log.
	fmt.Printf("fake board up, GOMAXPROCS=%d\n", runtime.GOMAXPROCS(0))
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	case <-time.After(2 * time.Minute):
		os.Exit(0)
	}
}

// control reads the control file at path every 10 ms ("interference=60
// steal=5 cpu_ms=0.5": other work's and the hypervisor's take of the
// board's core in % of one core, the CPU each request counts; a missing
// key or file is 0) and advances the interference and steal counters at
// the rates it read: the fake's stand-in for what the board reads from
// /proc/stat.
func (b *fakeBoard) control(path string) {
	last := time.Now()
	var inter, steal float64
	for range time.Tick(10 * time.Millisecond) {
		now := time.Now()
		dt := now.Sub(last)
		last = now
		b.interference.Add(int64(float64(dt) * inter / 100))
		b.steal.Add(int64(float64(dt) * steal / 100))
		c := readControl(path)
		inter, steal = c["interference"], c["steal"]
		b.cpuPerRequest.Store(int64(c["cpu_ms"] * float64(time.Millisecond)))
	}
}

// readControl reads a control file's key=value figures.
func readControl(path string) map[string]float64 {
	out := map[string]float64{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, f := range strings.Fields(string(b)) {
		k, v, ok := strings.Cut(f, "=")
		if x, err := strconv.ParseFloat(v, 64); ok && err == nil {
			out[k] = x
		}
	}
	return out
}

// fakeEnvironment names the fake board's environment objects in its stats
// JSON; the runner is given them, as cmd/loadtest gives the board's.
var fakeEnvironment = []string{"database", "host", "config"}

// fakeTarget describes the fake board to the runner, as contract.Board
// describes the board: its validation and environment objects.
var fakeTarget = watch.Target{Validate: validateFake, EnvironmentKeys: fakeEnvironment}

// validateFake is the validation these tests give the runner: the fake
// board's three commands must return the same posts (mode "differ" breaks
// it). The board's own validation is tested in loadtest/contract.
func validateFake(ctx context.Context, boardURL string) error {
	var first []string
	for i, cmd := range []string{"AllView", "OnceGetView", "EachGetView"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, boardURL+"?format=json&n=30&cmd="+cmd, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("validate %s: %w", cmd, err)
		}
		var a struct {
			Posts []struct {
				Message string `json:"message"`
			} `json:"posts"`
		}
		err = json.NewDecoder(resp.Body).Decode(&a)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("validate %s: %w", cmd, err)
		}
		var msgs []string
		for _, p := range a.Posts {
			msgs = append(msgs, p.Message)
		}
		if i == 0 {
			first = msgs
		} else if !slices.Equal(msgs, first) {
			return fmt.Errorf("validation failed: %s returned other posts than AllView", cmd)
		}
	}
	return nil
}
