package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"

	"bbslab/internal/cli"
	"bbslab/loadtest/pageserver"
)

// cmdTarget serves a fixed page (package pageserver) as the target of
// "loadtest bench". It prints the bound address and serves until ctx ends.
func cmdTarget(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("target", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen `address`")
	size := fs.Int("size", 2048, "page size in bytes")
	delay := fs.Duration("delay", 0, "time to wait before each response")
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", *addr, err)
	}
	fmt.Fprintf(stdout, "http://%s/\n", ln.Addr())
	return pageserver.Serve(ctx, ln, *size, *delay)
}
