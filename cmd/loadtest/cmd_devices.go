package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"bbslab/internal/child"
	"bbslab/internal/cli"
	"bbslab/loadtest/disturb"
	"bbslab/loadtest/fleet"
	"bbslab/loadtest/overhead"
)

// cmdOverhead runs the board and the yardstick side by side (package
// overhead).
func cmdOverhead(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o overhead.Options
	fs := newFlags("overhead", "usage: loadtest overhead [flags]\n\n"+overhead.Usage+"\nflags:\n", stderr)
	commands := fs.String("commands", strings.Join(overhead.Commands, ","), "commands to measure, comma-separated")
	formats := fs.String("formats", strings.Join(overhead.Formats, ","), "formats to measure: json, html")
	dbs := fs.String("dbs", strings.Join(overhead.DBs, ","), "databases: sqlite, postgres")
	cli.BindFlags(fs, &o)
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	var err error
	if o.Commands, err = cli.Subset("-commands", *commands, overhead.Commands); err != nil {
		return err
	}
	if o.Formats, err = cli.Subset("-formats", *formats, overhead.Formats); err != nil {
		return err
	}
	if o.DBs, err = cli.Subset("-dbs", *dbs, overhead.DBs); err != nil {
		return err
	}
	if err := o.Check(); err != nil {
		return cli.Usage(err)
	}
	if o.Loadtest == "" {
		if o.Loadtest, err = os.Executable(); err != nil {
			return fmt.Errorf("overhead: find the load tool: %w", err)
		}
	}
	return overhead.Run(ctx, o, stdout)
}

// cmdDisturb keeps CPUs busy on a schedule (package disturb), for showing
// an experiment catching other work on the machine.
func cmdDisturb(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("disturb", "", stderr)
	var s disturb.Schedule
	cpus := fs.String("cpu", "0", "comma-separated `CPUs` to keep busy in each burst (one spinning thread each, pinned where the system allows)")
	cli.BindFlags(fs, &s)
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	list, err := cli.ParseCPUs(*cpus)
	if err != nil {
		return cli.Usagef("disturb: -cpu %q: %v", *cpus, err)
	}
	if err := s.Check(); err != nil {
		return cli.Usagef("disturb: %v", err)
	}
	if err := child.CanPin(list...); err != nil {
		fmt.Fprintf(stdout, "not pinned (%v): the OS chooses the cores the bursts run on\n", err)
	}
	return interrupted(ctx, disturb.Run(ctx, s, disturb.CPU(list), stdout), "disturb: interrupted; the burst in progress was stopped")
}

// cmdFleet starts a fleet (package fleet) and holds it until interrupted.
func cmdFleet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fleet", "usage: loadtest fleet [flags] -- REPLICA COMMAND...\n\n"+fleet.Usage+"\nflags:\n", stderr)
	s := fleet.Spec{}
	cli.BindFlags(fs, &s)
	pgb := fs.String("pgbouncer", "off", "PgBouncer between the replicas and PostgreSQL: off, session or transaction (then give the board -pg-exec-mode exec)")
	pool := fs.Int("pgbouncer-pool", 10, "PgBouncer's server connections to PostgreSQL (default_pool_size)")
	pgbCPUs := fs.String("pgbouncer-cpus", "", "comma-separated `CPUs` to hold PgBouncer to, e.g. the database's rather than the replicas' (default: where the fleet runs)")
	fs.StringVar(&s.AdminDSN, "postgres", cmp.Or(os.Getenv("BBS_PG_DSN"), "postgres://root@127.0.0.1:5432/test?sslmode=disable"), "admin `DSN` of PostgreSQL, a role that may create roles and databases (default $BBS_PG_DSN)")
	fs.StringVar(&s.WorkDir, "dir", "", "`folder` for the configuration files and logs (default: a temporary one, removed after)")
	hold := fs.Duration("for", 0, "stop after this long (0: at Ctrl-C)")
	drop := fs.Bool("drop-leftovers", false, "drop the roles and databases that killed runs left (named "+fleet.RolePrefix+"...) and exit; while no other fleet runs on that server, whose role it would drop too")
	before, command := args, []string(nil)
	if i := slices.Index(args, "--"); i >= 0 {
		before, command = args[:i], args[i+1:]
	}
	if err := cli.ParseFlags(fs, before, false); err != nil {
		return err
	}
	if *drop {
		left, err := fleet.DropLeftovers(ctx, s.AdminDSN)
		fmt.Fprintf(stdout, "dropped: %s\n", strings.Join(append([]string{fmt.Sprint(len(left))}, left...), "\n  "))
		return err
	}
	s.Replica = command
	switch *pgb {
	case "off", "":
	case fleet.ModeSession, fleet.ModeTransaction:
		s.PgBouncer = &fleet.PgBouncerSpec{Mode: *pgb, PoolSize: *pool}
		if *pgbCPUs != "" {
			cpus, err := cli.ParseCPUs(*pgbCPUs)
			if err != nil {
				return cli.Usagef("fleet: -pgbouncer-cpus %q: %v", *pgbCPUs, err)
			}
			s.PgBouncer.CPUs, s.Pin = cpus, true
		}
	default:
		return cli.Usagef("fleet: -pgbouncer %q: want off, session or transaction", *pgb)
	}
	if s.WorkDir == "" {
		tmp, err := os.MkdirTemp("", "fleet-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		s.WorkDir = tmp
	} else if err := os.MkdirAll(s.WorkDir, 0o755); err != nil {
		return err
	}
	exits := make(chan error, 64)
	s.OnExit = func(err error) { exits <- err }
	f, err := fleet.Start(ctx, s)
	if err != nil {
		return err
	}
	printFleet(stdout, f, s.WorkDir)
	return holdFleet(ctx, f, *hold, exits, stdout)
}

// holdFleet waits for ctx's end or d, printing each exit, then stops f.
func holdFleet(ctx context.Context, f *fleet.Fleet, d time.Duration, exits <-chan error, stdout io.Writer) error {
	hold, cancel := ctx, context.CancelFunc(func() {})
	if d > 0 {
		hold, cancel = context.WithTimeout(ctx, d)
	}
	defer cancel()
	for hold.Err() == nil {
		select {
		case err := <-exits:
			fmt.Fprintf(stdout, "EXITED: %v\n", err)
		case <-hold.Done():
		}
	}
	fmt.Fprintln(stdout, "stopping the fleet")
	if err := f.Stop(); err != nil {
		return fmt.Errorf("fleet: %w", err)
	}
	fmt.Fprintf(stdout, "stopped; role and database %s dropped\n", f.Role.Name)
	return interrupted(ctx, nil, "fleet: interrupted; stopped cleanly")
}

// printFleet says where everything is.
func printFleet(w io.Writer, f *fleet.Fleet, dir string) {
	if f.URL != "" {
		fmt.Fprintf(w, "one address (HAProxy): %s\nHAProxy's metrics:     %s\n", f.URL, f.MetricsURL)
	}
	for _, r := range f.Replicas {
		fmt.Fprintf(w, "replica %s: %s  admin %s  (pid %d)\n", r.Name, r.URL, r.AdminURL, r.Pid)
	}
	if p := f.PgBouncer; p != nil {
		fmt.Fprintf(w, "PgBouncer (%s, pool %d): 127.0.0.1:%d  admin console: psql -h 127.0.0.1 -p %d -U %s pgbouncer (password in %s/userlist.txt)\n", p.Mode, p.PoolSize, p.Port, p.Port, fleet.StatsUser, dir)
	}
	limit := "none"
	if f.Role.ConnLimit > 0 {
		limit = fmt.Sprint(f.Role.ConnLimit)
	}
	fmt.Fprintf(w, "PostgreSQL role and database %s (CONNECTION LIMIT %s) at %s:%d\nfiles and logs: %s\nCtrl-C stops the fleet.\n", f.Role.Name, limit, f.Role.Host, f.Role.Port, dir)
}
