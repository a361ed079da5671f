package main

import (
	"context"
	"fmt"
	"io"

	"bbslab/internal/cli"
	"bbslab/loadtest/live/feed"
)

// dashboard is the live page a command serves while it loads (-live).
type dashboard struct{ *feed.Dashboard }

// startDashboard serves the live dashboard at addr ("" or "off": none,
// returning nil) and prints its URL to w, which asks for the page in
// Japanese when lang is "ja" (else the browser's language decides).
func startDashboard(ctx context.Context, addr, lang string, w io.Writer) (*dashboard, error) {
	if addr == "" || addr == "off" {
		return nil, nil
	}
	d, err := feed.Serve(ctx, addr)
	if err != nil {
		return nil, cli.Usagef("-live: %v", err)
	}
	url := d.URL
	if lang == "ja" {
		url += "?lang=ja"
	}
	fmt.Fprintf(w, "live: %s\n", url)
	return &dashboard{d}, nil
}

// stop stops d, if any, and writes to w why the page missed frames, if it
// did: the load's result stands either way.
func (d *dashboard) stop(w io.Writer) {
	if d == nil {
		return
	}
	if err := d.Stop(); err != nil {
		fmt.Fprintf(w, "warning: %v\n", err)
	}
}
