package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"bbslab/internal/cli"
	"bbslab/loadtest/grade"
)

// cmdGrade holds load tools' results against the server's own truth.
func cmdGrade(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o grade.Options
	fs.StringVar(&o.Server, "server", "", "the server's admin `address` (its truth at "+grade.TruthPath+")")
	fs.StringVar(&o.TruthFile, "truth", "", "read the truth from `file` instead of -server")
	fs.StringVar(&o.TruthLog, "truth-log", "", "with -truth: read the truth's per-request log (GET /admin/truth/log saved) from `file`")
	fs.StringVar(&o.Format, "format", "", "the files' `format` ("+grade.FormatNames()+"); default: from each file's content")
	fs.StringVar(&o.Window, "window", "", "`START,END` (RFC 3339): where a file without absolute times lies")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loadtest grade (-server URL | -truth FILE [-truth-log FILE]) [-format NAME] [-window START,END] FILE...")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, args, true); err != nil {
		return err
	}
	return grade.Run(ctx, o, fs.Args(), stdout)
}
