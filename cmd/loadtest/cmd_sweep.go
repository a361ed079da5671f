package main

import (
	"cmp"
	"context"
	"flag"
	"io"

	"bbslab/internal/cli"
	"bbslab/loadtest/session"
)

// cmdSweep runs once per client count and charts the results
// (session.Sweep).
func cmdSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f runFlags
	f.register(fs, "comma-separated client counts, e.g. 5,10,15,20")
	out := fs.String("out", "", "write the sweep as JSON to `file`")
	charts := fs.String("charts", "sweep", "chart file `prefix` (PREFIX-throughput.svg/.png, PREFIX-response.svg/.png); empty for none")
	var o outputFlags
	o.register(fs, ", one per step: out.csv at 10 clients is out-c10.csv")
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
	clients, err := cli.ParseCounts(f.clients)
	if err != nil {
		return err
	}
	s.Clients = clients[0]
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
	so := o.options(cmp.Or(s.Name, "loadtest sweep"), *out, objs, dash, stdout)
	so.Charts = *charts
	if err := f.watch.Apply(ctx, &s, &so, stderr); err != nil {
		return err
	}
	announceStart(stderr, s)
	v, err := session.Sweep(ctx, s, clients, so)
	if err != nil {
		return startError(err)
	}
	rm.post(ctx, *out, stderr)
	return cli.Outcome(v.Interrupted, v.Missed)
}
