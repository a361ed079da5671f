package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"bbslab/internal/child"
	"bbslab/internal/cli"
	"bbslab/loadtest/bench"
	"bbslab/loadtest/disturb"
	"bbslab/loadtest/overhead"
	"bbslab/loadtest/pageserver"
)

// cmdBench measures the generator's efficiency (package bench).
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", "", stderr)
	var o bench.Options
	cli.BindFlags(fs, &o)
	only := fs.String("only", "full,1k,10k", "scenarios to run: full (vs wrk and hey), 1k, 10k, tls (generator CPU per request, http vs https)")
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	o.Choose(*only)
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	o.Exe = exe
	return bench.Run(ctx, o, stdout, stderr)
}

// cmdPageServer serves a fixed page (package pageserver) as the target of
// "loadtest bench", over https with -tls. It prints the bound address and
// serves until ctx ends.
func cmdPageServer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("pageserver", "", stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen `address`")
	size := fs.Int("size", 2048, "page size in bytes")
	delay := fs.Duration("delay", 0, "time to wait before each response")
	useTLS := fs.Bool("tls", false, "serve https:// with a fresh self-signed certificate (clients need -insecure)")
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", *addr, err)
	}
	scheme := "http"
	if *useTLS {
		conf, err := pageserver.SelfSigned()
		if err != nil {
			ln.Close()
			return err
		}
		ln, scheme = tls.NewListener(ln, conf), "https"
	}
	fmt.Fprintf(stdout, "%s://%s/\n", scheme, ln.Addr())
	return pageserver.Serve(ctx, ln, *size, *delay)
}

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
	list, err := cpuList(*cpus)
	if err != nil {
		return cli.Usagef("disturb: -cpu %q: %v", *cpus, err)
	}
	if err := s.Check(); err != nil {
		return cli.Usagef("disturb: %v", err)
	}
	if err := child.CanPin(list...); err != nil {
		fmt.Fprintf(stdout, "not pinned (%v): the OS chooses the cores the bursts run on\n", err)
	}
	return interrupted(disturb.Run(ctx, s, disturb.CPU(list), stdout), "disturb: interrupted; the burst in progress was stopped")
}

// cpuList parses a comma-separated list of CPU numbers, at least one.
func cpuList(s string) ([]int, error) {
	var list []int
	for _, c := range cli.Items(s) {
		n, err := strconv.Atoi(c)
		if err != nil || n < 0 || n > 1023 {
			return nil, errors.New("want comma-separated CPU numbers")
		}
		list = append(list, n)
	}
	if len(list) == 0 {
		return nil, errors.New("want at least one CPU")
	}
	return list, nil
}
