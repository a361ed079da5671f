package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"bbslab/config"
	"bbslab/diskbench"
	"bbslab/entity/open"
	"bbslab/internal/cli"
)

// diskbenchCmd runs "bbs diskbench": the disk benchmark of the article
// "Test disk access speed for a Java application", run in the
// database's directory (or -dir), printed as a table or JSON. ctx ends on
// SIGINT/SIGTERM (main's signal.NotifyContext); the benchmark then removes
// its file and stops.
func diskbenchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bbs diskbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "`directory` to test (default: the SQLite database's directory, else .)")
	n := fs.Int("n", diskbench.DefaultN, "files to create, write, read, fsync, close and delete")
	size := fs.Int("size", diskbench.DefaultSize, "`bytes` written and read back per file")
	asJSON := fs.Bool("json", false, "print JSON instead of the table")
	cfgPath := fs.String("config", "", "TOML `file` whose db and dsn choose the default directory")
	dsn := fs.String("dsn", "", "SQLite `file` or DSN whose directory is the default (overrides -config)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: bbs diskbench [-dir DIR] [-n 1000] [-size 4096] [-json] [-config FILE] [-dsn DSN]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return cli.Usage(err)
	}
	if fs.NArg() > 0 {
		return cli.Usage(fmt.Errorf("diskbench: unexpected argument %q", fs.Arg(0)))
	}
	if *n < 1 || *n > 10_000_000 {
		return cli.Usage(fmt.Errorf("diskbench: -n %d: must be 1..10000000", *n))
	}
	if *size < 1 || *size > 64<<20 {
		return cli.Usage(fmt.Errorf("diskbench: -size %d: must be 1..%d", *size, 64<<20))
	}
	if *dir == "" {
		cfg := config.Default()
		if *cfgPath != "" {
			if err := cfg.Load(*cfgPath); err != nil {
				return cli.Usage(err)
			}
		}
		if *dsn != "" {
			cfg.DB, cfg.DSN = "sqlite", *dsn
		}
		*dir = open.DataDir(cfg.DB, cfg.DSN)
	}

	res, err := diskbench.Run(ctx, diskbench.Options{Dir: *dir, N: *n, Size: *size})
	if err != nil {
		return err
	}
	if *asJSON {
		return res.WriteJSON(stdout)
	}
	return res.WriteTable(stdout)
}
