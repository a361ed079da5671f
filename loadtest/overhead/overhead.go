// Package overhead measures what the board costs beyond its SQL, as
// "loadtest overhead" does:
//
//	err := overhead.Run(ctx, overhead.Options{Commands: []string{"AllView"}, Formats: []string{"html"}, DBs: []string{"sqlite"}, Rounds: 5}, os.Stdout)
//
// The board and the yardstick (bare handlers with the board's SQL) serve
// the same database at once; Usage says the rest.
package overhead

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"bbslab/internal/child"
	"bbslab/loadtest"
	"bbslab/machine"
	"bbslab/yardstick"
)

// Usage describes the benchmark, as "loadtest overhead -h" prints it.
const Usage = `Measures what the board costs beyond its SQL (issue 15): the board
(cmd/bbs -workers 10 -pool 10) and the yardstick (cmd/yardstick: bare
net/http handlers with the board's SQL, access patterns and bytes) serve
the same database at the same time, both pinned to CPU 0 (on Linux), each
driven by its own "loadtest run" (closed model, think 0) pinned to CPU 1.
The ratio yardstick/board is the board's CPU time per request over the
yardstick's (user + system time of each process over a round, divided
by the requests it answered in that round): how much more the board
costs than its SQL, whatever the machine's drift. The ratio of the two
throughputs is printed too, but read the CPU ratio: the kernel shares a
core between threads, not processes, and a server with more runnable
threads (cgo calls into SQLite hold one each) gets more than half, so the
throughput ratio can wander far from the CPU ratio from round to round.
Before the load, each row checks that the two answer with the same body
(the cost line aside).

For each database, command and format it prints both servers' requests per
second and CPU time per request (medians over the rounds after the first,
whose warm-up is not counted), then the CPU ratio and the throughput ratio,
each as the median and the min-max over those rounds.
SQLite: a temp file, seeded by the board first.
PostgreSQL: BBS_PG_DSN (default ` + DefaultPGDSN + `),
skipped with a note when nothing listens there. The board and the yardstick
are built once with go build (run from the repository) unless -bbs and
-yardstick name binaries. Run prints how long the rows will take.
`

// DefaultPGDSN is the PostgreSQL server used when BBS_PG_DSN is unset.
const DefaultPGDSN = "postgres://root@127.0.0.1:5432/test?sslmode=disable"

// The rows a run may measure, in the order it measures them.
var (
	Commands = []string{"AllView", "OnceGetView", "EachGetView"}
	Formats  = []string{"json", "html"}
	DBs      = []string{"sqlite", "postgres"}
)

// Options are the settings of one overhead benchmark.
type Options struct {
	// Commands, Formats and DBs choose the rows.
	Commands, Formats, DBs []string

	Rounds    int           `flag:"rounds" default:"5" help:"measured rounds per row (1..100); the median and min-max are reported"`
	Duration  time.Duration `flag:"duration" default:"2s" help:"length of each round"`
	Warmup    time.Duration `flag:"warmup" default:"1s" help:"warm-up before the first round of each row, not measured"`
	Clients   int           `flag:"clients" default:"10" help:"clients of each load tool (closed model, think 0)"`
	Workers   int           `flag:"workers" default:"10" help:"the board's -workers"`
	Pool      int           `flag:"pool" default:"10" help:"database connections of the board and of the yardstick"`
	N         int           `flag:"n" default:"30" help:"posts per page (the n parameter, 1..500)"`
	Board     string        `flag:"bbs" help:"board binary (default: go build bbslab/cmd/bbs into a temp dir)"`
	Yardstick string        `flag:"yardstick" help:"yardstick binary (default: go build bbslab/cmd/yardstick into a temp dir)"`
	Loadtest  string        `flag:"loadtest" help:"load tool binary run as \"loadtest run\" for each side (default: this program)"`
	Pin       bool          `flag:"pin" default:"true" help:"pin both servers to CPU 0 and both load tools to CPU 1 (Linux)"`
}

// Check checks the numbers of o, naming each by its flag.
func (o Options) Check() error {
	switch {
	case o.Rounds < 1 || o.Rounds > 100:
		return fmt.Errorf("-rounds %d: want 1..100", o.Rounds)
	case o.Duration < 100*time.Millisecond:
		return fmt.Errorf("-duration %v: want at least 100ms", o.Duration)
	case o.Warmup < 0:
		return fmt.Errorf("-warmup %v: want 0 or more", o.Warmup)
	case o.Clients < 1 || o.Clients > 10000:
		return fmt.Errorf("-clients %d: want 1..10000", o.Clients)
	case o.Workers < 0:
		return fmt.Errorf("-workers %d: want 0 (unlimited) or more", o.Workers)
	case o.Pool < 1:
		return fmt.Errorf("-pool %d: want at least 1", o.Pool)
	case o.N < 1 || o.N > 500:
		return fmt.Errorf("-n %d: want 1..500", o.N)
	}
	return nil
}

// runner holds what every row uses.
type runner struct {
	gen       generator // "loadtest run"; its CPUs are the load tools'
	serverCPU []int
	tmp       string
}

// Run runs the board and the yardstick side by side and prints a row per
// database, command and format to stdout.
func Run(ctx context.Context, f Options, stdout io.Writer) error {
	tmp, err := os.MkdirTemp("", "loadtest-overhead")
	if err != nil {
		return fmt.Errorf("overhead: %w", err)
	}
	defer os.RemoveAll(tmp)
	if f.Board == "" {
		if f.Board, err = goBuild(ctx, tmp, "bbs", "bbslab/cmd/bbs"); err != nil {
			return err
		}
	}
	if f.Yardstick == "" {
		if f.Yardstick, err = goBuild(ctx, tmp, "yardstick", "bbslab/cmd/yardstick"); err != nil {
			return err
		}
	}
	b := &runner{gen: generator{exe: f.Loadtest, dir: tmp}, tmp: tmp}
	why := "-pin=false"
	if f.Pin {
		why = ""
		if err := child.CanPin(0, 1); err != nil {
			why = err.Error()
		}
	}
	pinning := fmt.Sprintf("none (%s): servers and load tools share the CPUs", why)
	if why == "" {
		b.serverCPU, b.gen.cpus = []int{0}, []int{1}
		pinning = "both servers on CPU 0, both load tools on CPU 1"
	}
	rows := len(f.DBs) * len(f.Commands) * len(f.Formats)
	est := time.Duration(rows) * (f.Warmup + time.Duration(f.Rounds)*(f.Duration+150*time.Millisecond))
	fmt.Fprintf(stdout, "overhead: board (-workers %d -pool %d) vs yardstick (-pool %d), side by side on the same database\n", f.Workers, f.Pool, f.Pool)
	fmt.Fprintf(stdout, "date: %s\nmachine: %s\nload average before: %s\npinning: %s\n",
		time.Now().UTC().Format(time.RFC3339), machine.Host(), loadAverage(), pinning)
	fmt.Fprintf(stdout, "load: one \"loadtest run\" per server, %d clients, closed model, think 0; %d rounds of %v after a %v warm-up per row; n=%d; %d rows, about %v\n\n",
		f.Clients, f.Rounds, f.Duration, f.Warmup, f.N, rows, est.Round(time.Second))
	fmt.Fprintf(stdout, "%-8s  %-11s  %-6s  %11s  %15s  %13s  %17s  %-22s  %s\n", "db", "command", "format", "board req/s", "yardstick req/s", "board cpu/req", "yardstick cpu/req", "yardstick/board by CPU", "by throughput")
	var notes []string
	for _, db := range f.DBs {
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

func goBuild(ctx context.Context, dir, name, pkg string) (string, error) {
	out := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	if text, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("overhead: go build %s (run from the repository, or name binaries with -bbs and -yardstick): %w\n%s", pkg, err, text)
	}
	return out, nil
}

func loadAverage() string {
	l, err := machine.ReadLoad()
	if err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.2f %.2f %.2f (1, 5, 15 min)", l.One, l.Five, l.Fifteen)
}

// overheadDB measures every row of one database, or returns why it skipped.
func overheadDB(ctx context.Context, b *runner, f Options, db string, stdout io.Writer) (string, error) {
	dsn := filepath.Join(b.tmp, "overhead.db")
	if db == "postgres" {
		dsn = cmp.Or(os.Getenv("BBS_PG_DSN"), DefaultPGDSN)
		if err := reachable(dsn); err != nil {
			return fmt.Sprintf("postgres: skipped: %v (set BBS_PG_DSN to a server's URL)", err), nil
		}
	}
	start := func(prefix string, argv ...string) (*child.Process, string, error) {
		return child.StartAnnounced(child.Spec{Argv: argv, CPUs: b.serverCPU, Pin: true}, prefix, 2*time.Minute)
	}
	board, boardURL, err := start("board: ", f.Board, "-db", db, "-dsn", dsn, "-workers", strconv.Itoa(f.Workers), "-pool", strconv.Itoa(f.Pool),
		"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("overhead: %s: start the board: %w", db, err)
	}
	defer board.Stop(10 * time.Second)
	yst, ystURL, err := start("yardstick: ", f.Yardstick, "-db", db, "-dsn", dsn, "-pool", strconv.Itoa(f.Pool), "-addr", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("overhead: %s: start the yardstick: %w", db, err)
	}
	defer yst.Stop(10 * time.Second)
	for _, cmd := range f.Commands {
		for _, format := range f.Formats {
			query := fmt.Sprintf("?cmd=%s&format=%s&n=%d", cmd, format, f.N)
			urls := [2]string{boardURL + query, ystURL + query}
			if err := sameBodies(ctx, urls[0], urls[1]); err != nil {
				return "", fmt.Errorf("overhead: %s %s: %w", db, query, err)
			}
			row, err := overheadRow(ctx, b, f, fmt.Sprintf("%s-%s-%s", db, cmd, format), [2]*child.Process{board, yst}, urls)
			if err != nil {
				return "", fmt.Errorf("overhead: %s %s: %w", db, query, err)
			}
			text := func(s loadtest.Spread) string { return fmt.Sprintf("%.2f (%.2f-%.2f)", s.Median, s.Min, s.Max) }
			fmt.Fprintf(stdout, "%-8s  %-11s  %-6s  %11.0f  %15.0f  %11.0fus  %15.0fus  %-22s  %s\n", db, cmd, format, row.board, row.yardstick, row.boardCPU, row.ystCPU,
				text(row.cpuRatio), text(row.ratio))
		}
	}
	return "", nil
}

// reachable checks that something listens at the PostgreSQL URL's host.
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

// sameBodies checks that the board and the yardstick answer 200 with the
// same body, the board's cost line aside.
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

// overheadResult is one row: medians over the rounds and the ratios' spread.
type overheadResult struct {
	board, yardstick float64         // requests per second
	ratio            loadtest.Spread // yardstick/board
	boardCPU, ystCPU float64         // CPU µs per request
	cpuRatio         loadtest.Spread // board/yardstick
}

// overheadRow drives the board and the yardstick at once for f.Rounds rounds.
func overheadRow(ctx context.Context, b *runner, f Options, name string, procs [2]*child.Process, urls [2]string) (overheadResult, error) {
	var boards, ysts, ratios, boardCPU, ystCPU, cpuRatios []float64
	for r := 1; r <= f.Rounds; r++ {
		warmup := time.Duration(0)
		if r == 1 {
			warmup = f.Warmup
		}
		var res [2]*loadtest.Result
		var before, after [2]time.Duration
		errs := make([]error, 6) // the runs', then the CPU times' before and after
		for i, p := range procs {
			before[i], errs[2+i] = cpuTime(p)
		}
		var wg sync.WaitGroup
		for i, side := range []string{"board", "yardstick"} {
			wg.Go(func() {
				res[i], errs[i] = b.gen.Run(ctx, fmt.Sprintf("%s-r%d-%s", name, r, side), "-url", urls[i], "-clients", strconv.Itoa(f.Clients),
					"-model", "delay", "-think", "0", "-warmup", warmup.String(), "-duration", f.Duration.String(), "-expect", "200")
			})
		}
		wg.Wait()
		for i, p := range procs {
			after[i], errs[4+i] = cpuTime(p)
		}
		if err := errors.Join(errs...); err != nil {
			return overheadResult{}, fmt.Errorf("round %d: %w", r, err)
		}
		bt, yt := res[0].Total, res[1].Total
		if bt.Errors > 0 || yt.Errors > 0 {
			return overheadResult{}, fmt.Errorf("round %d: %d errors at the board, %d at the yardstick", r, bt.Errors, yt.Errors)
		}
		if bt.Throughput == 0 {
			return overheadResult{}, fmt.Errorf("round %d: the board answered nothing", r)
		}
		boards, ysts, ratios = append(boards, bt.Throughput), append(ysts, yt.Throughput), append(ratios, yt.Throughput/bt.Throughput)
		// A warm-up's requests are not in the counts but its CPU time is
		// in the deltas: such a round is left out unless it is the only one.
		if (warmup == 0 || f.Rounds == 1) && bt.Requests > 0 && yt.Requests > 0 {
			boardCPU = append(boardCPU, float64((after[0]-before[0]).Microseconds())/float64(bt.Requests))
			ystCPU = append(ystCPU, float64((after[1]-before[1]).Microseconds())/float64(yt.Requests))
			if y := ystCPU[len(ystCPU)-1]; y > 0 {
				cpuRatios = append(cpuRatios, boardCPU[len(boardCPU)-1]/y)
			}
		}
	}
	if len(cpuRatios) == 0 {
		return overheadResult{}, errors.New("no round measured both servers' CPU time per request")
	}
	return overheadResult{
		board: loadtest.Median(boards), yardstick: loadtest.Median(ysts), ratio: loadtest.SpreadOf(ratios),
		boardCPU: loadtest.Median(boardCPU), ystCPU: loadtest.Median(ystCPU), cpuRatio: loadtest.SpreadOf(cpuRatios),
	}, nil
}

func cpuTime(p *child.Process) (time.Duration, error) {
	d, err := p.CPUTime()
	if err != nil {
		return 0, fmt.Errorf("server CPU time: %w", err)
	}
	return d, nil
}

// A generator runs "loadtest run" in a child process, held to cpus, and
// reads the result it writes to dir.
type generator struct {
	exe, dir string
	cpus     []int // none: not pinned
}

// Run runs "loadtest run" with args, writing its result to dir/name.json.
func (g generator) Run(ctx context.Context, name string, args ...string) (*loadtest.Result, error) {
	out := filepath.Join(g.dir, name+".json")
	var text bytes.Buffer
	p, err := child.Start(child.Spec{Argv: append([]string{g.exe, "run", "-progress", "off", "-out", out}, args...),
		Stdout: &text, Stderr: &text, CPUs: g.cpus, Pin: true})
	if err == nil {
		err = p.Wait(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("loadtest run: %w\n%s", err, text.String())
	}
	res, err := loadtest.ReadResult(out)
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, text.String())
	}
	return res, nil
}
