package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"bbslab/internal/cli"
	"bbslab/loadtest/overhead"
)

// parseOverhead reads and checks the command line.
func parseOverhead(args []string, stderr io.Writer) (overhead.Options, error) {
	var f overhead.Options
	fs := flag.NewFlagSet("overhead", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: loadtest overhead [flags]\n\n"+overhead.Usage+"\nflags:\n")
		fs.PrintDefaults()
	}
	commands := fs.String("commands", strings.Join(overhead.Commands, ","), "commands to measure, comma-separated")
	formats := fs.String("formats", strings.Join(overhead.Formats, ","), "formats to measure: json, html")
	dbs := fs.String("dbs", strings.Join(overhead.DBs, ","), "databases: sqlite, postgres")
	cli.BindFlags(fs, &f)
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return f, err
	}
	var err error
	if f.Commands, err = cli.Subset("-commands", *commands, overhead.Commands); err != nil {
		return f, err
	}
	if f.Formats, err = cli.Subset("-formats", *formats, overhead.Formats); err != nil {
		return f, err
	}
	if f.DBs, err = cli.Subset("-dbs", *dbs, overhead.DBs); err != nil {
		return f, err
	}
	if err := f.Check(); err != nil {
		return f, cli.Usage(err)
	}
	return f, nil
}

// cmdOverhead runs the board and the yardstick side by side (package
// overhead).
func cmdOverhead(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseOverhead(args, stderr)
	if err != nil {
		return err
	}
	if f.Loadtest == "" {
		if f.Loadtest, err = os.Executable(); err != nil {
			return fmt.Errorf("overhead: find the load tool: %w", err)
		}
	}
	return overhead.Run(ctx, f, stdout)
}
