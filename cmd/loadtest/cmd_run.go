package main

import (
	"cmp"
	"context"
	"flag"
	"io"
	"strconv"

	"bbslab/internal/cli"
	"bbslab/loadtest/session"
)

// cmdRun performs one run (session.Run).
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs, "number of clients (connections)")
	out := fs.String("out", "", "write the result as JSON to `file`")
	var o outputFlags
	o.register(fs, "")
	rm := bindRoom(fs)
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	if err := rm.check(*out); err != nil {
		return err
	}
	s, objs, err := f.settings()
	if err != nil {
		return err
	}
	if s.Clients, err = strconv.Atoi(f.clients); err != nil {
		return cli.Usagef("-clients %q: want a number", f.clients)
	}
	if err := o.apply(fs, &s); err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return cli.Usage(err)
	}
	dash, err := startDashboard(ctx, f.live, "", stdout)
	if err != nil {
		return err
	}
	defer dash.stop(stderr)
	so := o.options(cmp.Or(s.Name, "loadtest run"), *out, objs, dash, stdout)
	if err := f.watch.Apply(ctx, &s, &so, stderr); err != nil {
		return err
	}
	announceStart(stderr, s)
	v, err := session.Run(ctx, s, so)
	if err != nil {
		return startError(err)
	}
	rm.post(ctx, *out, stderr)
	return cli.Outcome(v.Interrupted, v.Missed)
}
