package feed

import (
	"context"
	"errors"
	"fmt"
	"io"

	"bbslab/internal/cli"
	"bbslab/loadtest/live"
)

// A Dashboard is the live page a command serves, with its Feed (or nil).
type Dashboard struct {
	Hub  *live.Hub
	Feed *Feed
	URL  string // the page's address

	srv    *live.Server
	cancel context.CancelFunc
}

// Start serves the dashboard of a -live flag at addr ("" or "off": none) and
// prints its URL, in lang, to w. The caller must call Stop.
func Start(ctx context.Context, addr, lang string, w io.Writer) (*Dashboard, error) {
	if addr == "" || addr == "off" {
		return nil, nil
	}
	d, err := Serve(ctx, addr)
	if err != nil {
		return nil, cli.Usagef("-live: %v", err)
	}
	url := d.URL
	if lang == "ja" {
		url += "?lang=ja"
	}
	fmt.Fprintf(w, "live: %s\n", url)
	return d, nil
}

// Serve serves a new Hub at addr until Stop; the caller must call Stop.
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

// NewFeed gives d a Feed of the command's own rows and returns it.
func (d *Dashboard) NewFeed(title string) *Feed {
	d.Feed = New(d.Hub, title)
	return d.Feed
}

// Stop ends the Feed, if any, stops serving and warns on w of failures.
func (d *Dashboard) Stop(w io.Writer) {
	if d == nil {
		return
	}
	var err error
	if d.Feed != nil {
		err = d.Feed.Done(nil)
	}
	d.cancel()
	if err = errors.Join(err, d.srv.Wait()); err != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	}
}
