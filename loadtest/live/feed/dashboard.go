package feed

import (
	"context"
	"errors"

	"bbslab/loadtest/live"
)

// A Dashboard is the live page a command serves while it loads: a Hub
// served on a loopback address and, for a run or a sweep, the Feed of the
// command's own rows. An experiment is given the Hub instead and feeds it
// from inside its runner.
type Dashboard struct {
	// Hub holds the frames the page shows.
	Hub *live.Hub
	// Feed publishes the command's own rows to Hub; nil until NewFeed.
	Feed *Feed
	// URL is the page's address, e.g. http://127.0.0.1:41234/.
	URL string

	srv    *live.Server
	cancel context.CancelFunc
}

// Serve serves the dashboard of a new Hub at addr (a loopback address,
// as live.Serve requires; port 0 picks a free one) until Stop or until ctx
// ends. The caller must call Stop.
func Serve(ctx context.Context, addr string) (*Dashboard, error) {
	hub := live.New()
	dctx, cancel := context.WithCancel(ctx)
	srv, err := live.Serve(dctx, addr, hub)
	if err != nil {
		cancel()
		return nil, err
	}
	return &Dashboard{Hub: hub, URL: srv.URL, srv: srv, cancel: cancel}, nil
}

// NewFeed gives d a Feed of the command's own rows, titled title, and
// returns it.
func (d *Dashboard) NewFeed(title string) *Feed {
	d.Feed = New(d.Hub, title)
	return d.Feed
}

// Stop publishes the end when d has a Feed (an experiment publishes its
// own), stops serving and returns why the page missed frames, if it did:
// the load's result stands either way.
func (d *Dashboard) Stop() error {
	var err error
	if d.Feed != nil {
		err = d.Feed.Done(nil)
	}
	d.cancel()
	return errors.Join(err, d.srv.Wait())
}
