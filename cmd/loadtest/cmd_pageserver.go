package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"

	"bbslab/internal/cli"
	"bbslab/loadtest/pageserver"
)

// cmdPageServer serves a fixed page (package pageserver) as the target of
// "loadtest bench", over https with -tls. It prints the bound address and
// serves until ctx ends. "loadtest target", its name before, still runs
// it: a server under test is a watch.Target.
func cmdPageServer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pageserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
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
