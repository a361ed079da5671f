package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"bbslab/workshop/doctor"
)

func init() {
	commands["doctor"] = func(args []string) int { return runDoctor(args, os.Stdout, os.Stderr) }
}

const doctorUsage = `usage: workshop doctor [flags]

Checks this machine for the workshop day (docs/workshop.md), in seconds:
Go against go.mod, cgo's C compiler, curl, the ports the exercises use
(8080 and 6060; exercise 10 also 8404, 6061 and 6062), the CPUs and
whether pinning works, the other work on the machine now, PostgreSQL at
BBS_PG_DSN (default ` + doctor.DefaultDSN + `)
with its role's privileges (exercise 7: the board's tables and room for
its connections; exercise 10: creating roles and databases, tried once
with a role and database it drops at once), psql, HAProxy, PgBouncer and
Chromium (optional). It prints what it read, then one line per exercise:
ready, or what stops it and the command or SQL that fixes it.

Exit status: 0 when the core exercises (every one but 7 and 10, which
need PostgreSQL, and for 9 HAProxy and PgBouncer) can run, 1 when one
cannot, 2 on a bad flag. Exercises 7 and 10 are reported, not counted.

flags:
`

// runDoctor is "workshop doctor".
func runDoctor(args []string, stdout, stderr io.Writer) int {
	c := doctor.Default()
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, doctorUsage); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "write the report as JSON")
	fs.StringVar(&c.DSN, "dsn", c.DSN, "PostgreSQL `URL` of exercises 7 and 10 (default $BBS_PG_DSN)")
	fs.DurationVar(&c.Window, "window", c.Window, "how long to measure the other work on the machine")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "how long each check may take")
	fs.BoolVar(&c.TrialRole, "trial-role", c.TrialRole, "create and drop a fleet role and database, as exercise 10 will")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "workshop doctor: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, c.Window+2*c.Timeout+5*time.Second)
	defer cancel()
	r := doctor.Run(ctx, c)
	write := r.WriteText
	if *asJSON {
		write = r.WriteJSON
	}
	if err := write(stdout); err != nil {
		fmt.Fprintln(stderr, "workshop doctor:", err)
		return 1
	}
	if !r.CoreReady() {
		return 1
	}
	return 0
}
