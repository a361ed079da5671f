package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
)

// dashboard is the live page a command serves while it loads (-live).
// run and sweep feed it themselves (withFeed); an experiment is given the
// hub and feeds it from inside the runner.
type dashboard struct {
	hub    *live.Hub
	feed   *feed.Feed // nil unless withFeed
	srv    *live.Server
	cancel context.CancelFunc
}

// startDashboard serves the live dashboard at addr ("" or "off": none,
// returning nil) and prints its URL to w.
func startDashboard(ctx context.Context, addr string, w io.Writer) (*dashboard, error) {
	if addr == "" || addr == "off" {
		return nil, nil
	}
	hub := live.New()
	dctx, cancel := context.WithCancel(ctx)
	srv, err := live.Serve(dctx, addr, hub)
	if err != nil {
		cancel()
		return nil, cli.Usagef("-live: %v", err)
	}
	fmt.Fprintf(w, "live: %s\n", srv.URL)
	return &dashboard{hub: hub, srv: srv, cancel: cancel}, nil
}

// withFeed gives d a feed of the command's own rows, titled name.
func (d *dashboard) withFeed(name string) *dashboard {
	if d != nil {
		d.feed = feed.New(d.hub, name)
	}
	return d
}

// stop publishes the end (when d has a feed: an experiment publishes its
// own), stops serving and writes to w why the page missed frames, if it
// did: the load's result stands either way.
func (d *dashboard) stop(w io.Writer) {
	if d == nil {
		return
	}
	var err error
	if d.feed != nil {
		err = d.feed.Done(nil)
	}
	d.cancel()
	if err = errors.Join(err, d.srv.Wait()); err != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	}
}

// planned is how long a run of s is planned to load (warm-up included),
// for the time left: its duration, or its bound with a request budget.
func planned(s loadtest.Settings) time.Duration {
	if s.Duration > 0 {
		return s.Warmup + s.Duration
	}
	return s.MaxDuration
}
