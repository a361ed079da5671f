package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"bbslab/internal/cli"
	"bbslab/machine"
	"bbslab/yardstick"
)

// overheadUsage is what "loadtest overhead -h" prints above the flags.
const overheadUsage = `usage: loadtest overhead [flags]

Measures what the board costs beyond its SQL (issue 15): the board
(cmd/bbs -workers 10 -pool 10) and the yardstick (cmd/yardstick: bare
net/http handlers with the board's SQL, access patterns and bytes) serve
the same database at the same time, both pinned to CPU 0 with taskset, each
driven by its own "loadtest run" (closed model, think 0) pinned to CPU 1.
The ratio yardstick/board is the board's CPU time per request over the
yardstick's (user + system time of each process from /proc/PID/stat over a
round, divided by the requests it answered in that round): how much more
the board costs than its SQL, whatever the machine's drift. The ratio of
the two throughputs is printed too; it equals the CPU ratio only when the
kernel shares the core evenly between the two processes, and it shares it
between threads, not processes: a server with more runnable threads (cgo
calls into SQLite hold one each) gets more than half, so on this lab's VM
the throughput ratio wandered between 0.3 and 2.3 over rounds while the CPU
ratio held. Before the load, each row checks that the two answer with the
same body (the cost line aside).

For each database, command and format it prints both servers' requests per
second and CPU time per request (medians over the rounds after the first,
whose warm-up is not counted), then the CPU ratio and the throughput ratio,
each as the median and the min-max over those rounds.
SQLite: a temp file, seeded by the board first.
PostgreSQL: BBS_PG_DSN (default ` + defaultPGDSN + `),
skipped with a note when nothing listens there. The board and the yardstick
are built once with go build (run from the repository) unless -bbs and
-yardstick name binaries. The defaults take about 2.5 minutes for the 12
rows.

flags:
`

// defaultPGDSN is the PostgreSQL server used when BBS_PG_DSN is unset.
const defaultPGDSN = "postgres://root@127.0.0.1:5432/test?sslmode=disable"

var (
	overheadCommands = []string{"AllView", "OnceGetView", "EachGetView"}
	overheadFormats  = []string{"json", "html"}
	overheadDBs      = []string{"sqlite", "postgres"}
)

// overheadFlags are the settings of one overhead benchmark.
type overheadFlags struct {
	commands, formats, dbs []string
	rounds                 int
	duration, warmup       time.Duration
	clients, workers, pool int
	n                      int
	bbsBin, ystBin, ltBin  string
	pin                    bool
}

// parseOverhead reads and checks the command line.
func parseOverhead(args []string, stderr io.Writer) (overheadFlags, error) {
	var f overheadFlags
	fs := flag.NewFlagSet("overhead", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), overheadUsage)
		fs.PrintDefaults()
	}
	commands := fs.String("commands", strings.Join(overheadCommands, ","), "commands to measure, comma-separated")
	formats := fs.String("formats", strings.Join(overheadFormats, ","), "formats to measure: json, html")
	dbs := fs.String("dbs", strings.Join(overheadDBs, ","), "databases: sqlite, postgres")
	fs.IntVar(&f.rounds, "rounds", 5, "measured rounds per row (1..100); the median and min-max are reported")
	fs.DurationVar(&f.duration, "duration", 2*time.Second, "length of each round")
	fs.DurationVar(&f.warmup, "warmup", time.Second, "warm-up before the first round of each row, not measured")
	fs.IntVar(&f.clients, "clients", 10, "clients of each load tool (closed model, think 0)")
	fs.IntVar(&f.workers, "workers", 10, "the board's -workers")
	fs.IntVar(&f.pool, "pool", 10, "database connections of the board and of the yardstick")
	fs.IntVar(&f.n, "n", 30, "posts per page (the n parameter, 1..500)")
	fs.StringVar(&f.bbsBin, "bbs", "", "board binary (default: go build bbslab/cmd/bbs into a temp dir)")
	fs.StringVar(&f.ystBin, "yardstick", "", "yardstick binary (default: go build bbslab/cmd/yardstick into a temp dir)")
	fs.StringVar(&f.ltBin, "loadtest", "", "load tool binary run as \"loadtest run\" for each side (default: this program)")
	fs.BoolVar(&f.pin, "pin", true, "pin both servers to CPU 0 and both load tools to CPU 1 with taskset")
	if err := parseFlags(fs, args, false); err != nil {
		return f, err
	}
	var err error
	if f.commands, err = pickList("-commands", *commands, overheadCommands); err != nil {
		return f, err
	}
	if f.formats, err = pickList("-formats", *formats, overheadFormats); err != nil {
		return f, err
	}
	if f.dbs, err = pickList("-dbs", *dbs, overheadDBs); err != nil {
		return f, err
	}
	switch {
	case f.rounds < 1 || f.rounds > 100:
		return f, cli.Usagef("-rounds %d: want 1..100", f.rounds)
	case f.duration < 100*time.Millisecond:
		return f, cli.Usagef("-duration %v: want at least 100ms", f.duration)
	case f.warmup < 0:
		return f, cli.Usagef("-warmup %v: want 0 or more", f.warmup)
	case f.clients < 1 || f.clients > 10000:
		return f, cli.Usagef("-clients %d: want 1..10000", f.clients)
	case f.workers < 0:
		return f, cli.Usagef("-workers %d: want 0 (unlimited) or more", f.workers)
	case f.pool < 1:
		return f, cli.Usagef("-pool %d: want at least 1", f.pool)
	case f.n < 1 || f.n > 500:
		return f, cli.Usagef("-n %d: want 1..500", f.n)
	}
	return f, nil
}

// pickList parses a comma-separated subset of allowed, kept in the order
// of allowed.
func pickList(name, list string, allowed []string) ([]string, error) {
	want := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(allowed, s) {
			return nil, cli.Usagef("%s %q: %q is not one of %s", name, list, s, strings.Join(allowed, ", "))
		}
		want[s] = true
	}
	var out []string
	for _, s := range allowed {
		if want[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

// cmdOverhead runs the board and the yardstick side by side (see
// overheadUsage).
func cmdOverhead(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseOverhead(args, stderr)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "loadtest-overhead")
	if err != nil {
		return fmt.Errorf("overhead: %w", err)
	}
	defer os.RemoveAll(tmp)
	if f.ltBin == "" {
		if f.ltBin, err = os.Executable(); err != nil {
			return fmt.Errorf("overhead: find the load tool: %w", err)
		}
	}
	if f.bbsBin == "" {
		if f.bbsBin, err = goBuild(ctx, tmp, "bbs", "bbslab/cmd/bbs"); err != nil {
			return err
		}
	}
	if f.ystBin == "" {
		if f.ystBin, err = goBuild(ctx, tmp, "yardstick", "bbslab/cmd/yardstick"); err != nil {
			return err
		}
	}
	b := &bench{exe: f.ltBin, tmp: tmp, stdout: stdout, stderr: stderr}
	pinning := "none (taskset missing, -pin=false or one CPU): servers and load tools share the CPUs"
	if _, err := exec.LookPath("taskset"); err == nil && f.pin && runtime.NumCPU() >= 2 {
		b.targetCPU, b.genCPU = []string{"taskset", "-c", "0"}, []string{"taskset", "-c", "1"}
		pinning = "both servers on CPU 0, both load tools on CPU 1 (taskset)"
	}
	rows := len(f.dbs) * len(f.commands) * len(f.formats)
	est := time.Duration(rows) * (f.warmup + time.Duration(f.rounds)*(f.duration+150*time.Millisecond))
	fmt.Fprintf(stdout, "overhead: board (-workers %d -pool %d) vs yardstick (-pool %d), side by side on the same database\n", f.workers, f.pool, f.pool)
	fmt.Fprintf(stdout, "date: %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(stdout, "machine: %s\n", machine.Host())
	fmt.Fprintf(stdout, "load average before: %s\n", loadAverage())
	fmt.Fprintf(stdout, "pinning: %s\n", pinning)
	fmt.Fprintf(stdout, "load: one \"loadtest run\" per server, %d clients, closed model, think 0; %d rounds of %v after a %v warm-up per row; n=%d; %d rows, about %v\n\n",
		f.clients, f.rounds, f.duration, f.warmup, f.n, rows, est.Round(time.Second))
	fmt.Fprintf(stdout, "%-8s  %-11s  %-6s  %11s  %15s  %13s  %17s  %-22s  %s\n", "db", "command", "format", "board req/s", "yardstick req/s", "board cpu/req", "yardstick cpu/req", "yardstick/board by CPU", "by throughput")
	var notes []string
	for _, db := range f.dbs {
		note, err := overheadDB(ctx, b, f, db, stdout)
		if err != nil {
			return err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	fmt.Fprintf(stdout, "\nload average after: %s\n", loadAverage())
	for _, n := range notes {
		fmt.Fprintln(stdout, n)
	}
	return nil
}

// goBuild builds pkg into dir/name and returns its path.
func goBuild(ctx context.Context, dir, name, pkg string) (string, error) {
	out := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	if text, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("overhead: go build %s (run from the repository, or name binaries with -bbs and -yardstick): %w\n%s", pkg, err, text)
	}
	return out, nil
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	fields := strings.Fields(string(b))
	if len(fields) < 3 {
		return "unknown"
	}
	return strings.Join(fields[:3], " ") + " (1, 5, 15 min)"
}

// overheadDB starts the board and the yardstick on one database and
// measures every row of it. It returns a note when the database was
// skipped.
func overheadDB(ctx context.Context, b *bench, f overheadFlags, db string, stdout io.Writer) (string, error) {
	dsn := filepath.Join(b.tmp, "overhead.db")
	if db == "postgres" {
		dsn = os.Getenv("BBS_PG_DSN")
		if dsn == "" {
			dsn = defaultPGDSN
		}
		if err := reachable(dsn); err != nil {
			return fmt.Sprintf("postgres: skipped: %v (set BBS_PG_DSN to a server's URL)", err), nil
		}
	}
	board, err := startServer(ctx, b, "board: ", f.bbsBin, "-db", db, "-dsn", dsn, "-workers", strconv.Itoa(f.workers), "-pool", strconv.Itoa(f.pool),
		"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("overhead: %s: start the board: %w", db, err)
	}
	defer board.stop()
	yst, err := startServer(ctx, b, "yardstick: ", f.ystBin, "-db", db, "-dsn", dsn, "-pool", strconv.Itoa(f.pool), "-addr", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("overhead: %s: start the yardstick: %w", db, err)
	}
	defer yst.stop()
	for _, cmd := range f.commands {
		for _, format := range f.formats {
			query := fmt.Sprintf("?cmd=%s&format=%s&n=%d", cmd, format, f.n)
			if err := sameBodies(ctx, board.url+query, yst.url+query); err != nil {
				return "", fmt.Errorf("overhead: %s %s: %w", db, query, err)
			}
			row, err := overheadRow(ctx, b, f, fmt.Sprintf("%s-%s-%s", db, cmd, format), board, yst, query)
			if err != nil {
				return "", fmt.Errorf("overhead: %s %s: %w", db, query, err)
			}
			fmt.Fprintf(stdout, "%-8s  %-11s  %-6s  %11.0f  %15.0f  %11.0fus  %15.0fus  %-22s  %s\n", db, cmd, format, row.board, row.yardstick, row.boardCPU, row.ystCPU,
				fmt.Sprintf("%.2f (%.2f-%.2f)", row.cpuRatio, row.cpuLo, row.cpuHi), fmt.Sprintf("%.2f (%.2f-%.2f)", row.ratio, row.lo, row.hi))
		}
	}
	return "", nil
}

// reachable checks that something listens at the PostgreSQL URL's host
// and port (default 5432).
func reachable(dsn string) error {
	u, err := neturl.Parse(dsn)
	if err != nil || u.Host == "" {
		return errors.New("BBS_PG_DSN is not a postgres:// URL")
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "5432")
	}
	c, err := net.DialTimeout("tcp", host, 2*time.Second)
	if err != nil {
		return fmt.Errorf("nothing answers at %s", host)
	}
	c.Close()
	return nil
}

// childServer is a child process serving HTTP.
type childServer struct {
	url  string
	pid  int
	stop func()
}

// startServer starts a server pinned to the target CPU and waits for the
// line starting with prefix that names its URL.
func startServer(ctx context.Context, b *bench, prefix, name string, args ...string) (*childServer, error) {
	cmd := b.command(ctx, b.targetCPU, name, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var errb lockedBuf
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		})
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() { // read to the end so that the child never blocks on a full pipe
			if line := sc.Text(); !sent && strings.HasPrefix(line, prefix) {
				found <- strings.TrimSpace(strings.TrimPrefix(line, prefix))
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	select {
	case u, ok := <-found:
		if ok {
			return &childServer{url: u, pid: cmd.Process.Pid, stop: stop}, nil
		}
		stop()
		return nil, fmt.Errorf("%s exited before printing %q:\n%s", name, prefix, errb.String())
	case <-time.After(2 * time.Minute):
		stop()
		return nil, fmt.Errorf("%s printed no %q line in 2 minutes:\n%s", name, prefix, errb.String())
	}
}

// lockedBuf collects a child's stderr.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// sameBodies checks, before any load, that the board and the yardstick
// both answer 200 with the same body, the board's cost line aside.
func sameBodies(ctx context.Context, boardURL, ystURL string) error {
	bb, err := fetchOK(ctx, boardURL)
	if err != nil {
		return fmt.Errorf("board: %w", err)
	}
	yb, err := fetchOK(ctx, ystURL)
	if err != nil {
		return fmt.Errorf("yardstick: %w", err)
	}
	bs, ys := yardstick.WithoutCost(string(bb)), yardstick.WithoutCost(string(yb))
	if bs == ys {
		return nil
	}
	i := 0
	for i < min(len(bs), len(ys)) && bs[i] == ys[i] {
		i++
	}
	return fmt.Errorf("the board and the yardstick answer differently from byte %d: board %q, yardstick %q",
		i, bs[i:min(len(bs), i+60)], ys[i:min(len(ys), i+60)])
}

// fetchOK GETs u and returns its body, or an error unless the status is 200.
func fetchOK(ctx context.Context, u string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d: %.200s", u, resp.StatusCode, body)
	}
	return body, nil
}

// overheadResult is one row: medians over the rounds and the ratio's
// median, min and max.
type overheadResult struct {
	board, yardstick float64 // requests per second
	ratio, lo, hi    float64 // yardstick/board
	// Server CPU time (user + system) per request, in microseconds,
	// over the rounds without a warm-up (all rounds when there is one).
	boardCPU, ystCPU float64
	// cpuRatio is board CPU per request over yardstick CPU per request,
	// round by round: median, min and max.
	cpuRatio, cpuLo, cpuHi float64
}

// overheadRow drives both servers at the same time, each with its own
// load tool, for f.rounds rounds.
func overheadRow(ctx context.Context, b *bench, f overheadFlags, name string, board, yst *childServer, query string) (overheadResult, error) {
	boardURL, ystURL := board.url+query, yst.url+query
	var boards, ysts, ratios, boardCPU, ystCPU, cpuRatios []float64
	for r := 1; r <= f.rounds; r++ {
		warmup := time.Duration(0)
		if r == 1 {
			warmup = f.warmup
		}
		args := func(u string) []string {
			return []string{"-url", u, "-clients", strconv.Itoa(f.clients), "-model", "delay", "-think", "0",
				"-warmup", warmup.String(), "-duration", f.duration.String(), "-expect", "200"}
		}
		var (
			wg               sync.WaitGroup
			bRate, yRate     float64
			bErr, yErr       error
			bErrors, yErrors int64
			bReqs, yReqs     int64
		)
		bCPU0, err1 := procCPU(board.pid)
		yCPU0, err2 := procCPU(yst.pid)
		wg.Add(2)
		go func() {
			defer wg.Done()
			res, _, err := b.ourRun(ctx, fmt.Sprintf("%s-r%d-board", name, r), args(boardURL)...)
			if err == nil {
				bRate, bErrors, bReqs = res.Total.Throughput, res.Total.Errors, res.Total.Requests
			}
			bErr = err
		}()
		go func() {
			defer wg.Done()
			res, _, err := b.ourRun(ctx, fmt.Sprintf("%s-r%d-yardstick", name, r), args(ystURL)...)
			if err == nil {
				yRate, yErrors, yReqs = res.Total.Throughput, res.Total.Errors, res.Total.Requests
			}
			yErr = err
		}()
		wg.Wait()
		bCPU1, err3 := procCPU(board.pid)
		yCPU1, err4 := procCPU(yst.pid)
		if err := errors.Join(bErr, yErr, err1, err2, err3, err4); err != nil {
			return overheadResult{}, fmt.Errorf("round %d: %w", r, err)
		}
		if bErrors > 0 || yErrors > 0 {
			return overheadResult{}, fmt.Errorf("round %d: %d errors at the board, %d at the yardstick", r, bErrors, yErrors)
		}
		if bRate == 0 {
			return overheadResult{}, fmt.Errorf("round %d: the board answered nothing", r)
		}
		boards, ysts, ratios = append(boards, bRate), append(ysts, yRate), append(ratios, yRate/bRate)
		// A warm-up's requests are not in the counts but its CPU time is
		// in the deltas: such a round is left out unless it is the only one.
		if (warmup == 0 || f.rounds == 1) && bReqs > 0 && yReqs > 0 {
			boardCPU = append(boardCPU, float64((bCPU1-bCPU0).Microseconds())/float64(bReqs))
			ystCPU = append(ystCPU, float64((yCPU1-yCPU0).Microseconds())/float64(yReqs))
			if y := ystCPU[len(ystCPU)-1]; y > 0 {
				cpuRatios = append(cpuRatios, boardCPU[len(boardCPU)-1]/y)
			}
		}
	}
	slices.Sort(ratios)
	slices.Sort(cpuRatios)
	if len(cpuRatios) == 0 {
		return overheadResult{}, errors.New("no round measured both servers' CPU time per request")
	}
	return overheadResult{
		cpuRatio: overheadMedian(cpuRatios), cpuLo: cpuRatios[0], cpuHi: cpuRatios[len(cpuRatios)-1],
		board: overheadMedian(boards), yardstick: overheadMedian(ysts),
		ratio: overheadMedian(ratios), lo: ratios[0], hi: ratios[len(ratios)-1],
		boardCPU: overheadMedian(boardCPU), ystCPU: overheadMedian(ystCPU),
	}, nil
}

// clockTick is the unit of the CPU times in /proc/PID/stat: USER_HZ,
// which Linux fixes at 100 on every architecture it exports to user space
// (proc(5): "measured in clock ticks (divide by sysconf(_SC_CLK_TCK))").
const clockTick = 10 * time.Millisecond

// procCPU returns the user + system CPU time a process has used so far,
// read from /proc/PID/stat (utime and stime, fields 14 and 15).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("server CPU time: %w", err)
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count the fields after its closing parenthesis, field 3 first.
	i := bytes.LastIndexByte(b, ')')
	fields := strings.Fields(string(b[i+1:]))
	if i < 0 || len(fields) < 13 {
		return 0, fmt.Errorf("server CPU time: /proc/%d/stat: unexpected format", pid)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("server CPU time: /proc/%d/stat: utime %q, stime %q", pid, fields[11], fields[12])
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// overheadMedian returns the middle value of xs (the mean of the two middle ones
// when their number is even).
func overheadMedian(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 0 {
		return (s[m-1] + s[m]) / 2
	}
	return s[m]
}
