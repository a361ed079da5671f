package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest/overhead"
)

// overheadUsage is what "loadtest overhead -h" prints above the flags.
const overheadUsage = `usage: loadtest overhead [flags]

Measures what the board costs beyond its SQL (issue 15): the board
(cmd/bbs -workers 10 -pool 10) and the yardstick (cmd/yardstick: bare
net/http handlers with the board's SQL, access patterns and bytes) serve
the same database at the same time, both pinned to CPU 0 (on Linux), each
driven by its own "loadtest run" (closed model, think 0) pinned to CPU 1.
The ratio yardstick/board is the board's CPU time per request over the
yardstick's (user + system time of each process over a round, divided
by the requests it answered in that round): how much more
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
PostgreSQL: BBS_PG_DSN (default ` + overhead.DefaultPGDSN + `),
skipped with a note when nothing listens there. The board and the yardstick
are built once with go build (run from the repository) unless -bbs and
-yardstick name binaries. The defaults take about 2.5 minutes for the 12
rows.

flags:
`

// parseOverhead reads and checks the command line.
func parseOverhead(args []string, stderr io.Writer) (overhead.Options, error) {
	var f overhead.Options
	fs := flag.NewFlagSet("overhead", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), overheadUsage)
		fs.PrintDefaults()
	}
	commands := fs.String("commands", strings.Join(overhead.Commands, ","), "commands to measure, comma-separated")
	formats := fs.String("formats", strings.Join(overhead.Formats, ","), "formats to measure: json, html")
	dbs := fs.String("dbs", strings.Join(overhead.DBs, ","), "databases: sqlite, postgres")
	fs.IntVar(&f.Rounds, "rounds", 5, "measured rounds per row (1..100); the median and min-max are reported")
	fs.DurationVar(&f.Duration, "duration", 2*time.Second, "length of each round")
	fs.DurationVar(&f.Warmup, "warmup", time.Second, "warm-up before the first round of each row, not measured")
	fs.IntVar(&f.Clients, "clients", 10, "clients of each load tool (closed model, think 0)")
	fs.IntVar(&f.Workers, "workers", 10, "the board's -workers")
	fs.IntVar(&f.Pool, "pool", 10, "database connections of the board and of the yardstick")
	fs.IntVar(&f.N, "n", 30, "posts per page (the n parameter, 1..500)")
	fs.StringVar(&f.Board, "bbs", "", "board binary (default: go build bbslab/cmd/bbs into a temp dir)")
	fs.StringVar(&f.Yardstick, "yardstick", "", "yardstick binary (default: go build bbslab/cmd/yardstick into a temp dir)")
	fs.StringVar(&f.Loadtest, "loadtest", "", "load tool binary run as \"loadtest run\" for each side (default: this program)")
	fs.BoolVar(&f.Pin, "pin", true, "pin both servers to CPU 0 and both load tools to CPU 1 (Linux)")
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return f, err
	}
	var err error
	if f.Commands, err = cli.Subset("-commands", *commands, overhead.Commands); err != nil {
		return f, err
	}
	if f.Formats, err = cli.Subset("-formats", *formats, overhead.Formats); err != nil {
		return f, err
	}
	if f.DBs, err = cli.Subset("-dbs", *dbs, overhead.DBs); err != nil {
		return f, err
	}
	switch {
	case f.Rounds < 1 || f.Rounds > 100:
		return f, cli.Usagef("-rounds %d: want 1..100", f.Rounds)
	case f.Duration < 100*time.Millisecond:
		return f, cli.Usagef("-duration %v: want at least 100ms", f.Duration)
	case f.Warmup < 0:
		return f, cli.Usagef("-warmup %v: want 0 or more", f.Warmup)
	case f.Clients < 1 || f.Clients > 10000:
		return f, cli.Usagef("-clients %d: want 1..10000", f.Clients)
	case f.Workers < 0:
		return f, cli.Usagef("-workers %d: want 0 (unlimited) or more", f.Workers)
	case f.Pool < 1:
		return f, cli.Usagef("-pool %d: want at least 1", f.Pool)
	case f.N < 1 || f.N > 500:
		return f, cli.Usagef("-n %d: want 1..500", f.N)
	}
	return f, nil
}

// cmdOverhead runs the board and the yardstick side by side (package
// overhead).
func cmdOverhead(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseOverhead(args, stderr)
	if err != nil {
		return err
	}
	if f.Loadtest == "" {
		if f.Loadtest, err = os.Executable(); err != nil {
			return fmt.Errorf("overhead: find the load tool: %w", err)
		}
	}
	return overhead.Run(ctx, f, stdout)
}
