package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"bbslab/internal/cli"
	"bbslab/loadtest"
)

// cmdMerge combines results from several generator machines.
func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the merged result as JSON to `file`")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loadtest merge [-out FILE] RESULT.json ...")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return cli.Usagef("merge: give the result files of each generator")
	}
	var rs []*loadtest.Result
	for _, p := range fs.Args() {
		r, err := loadtest.ReadResult(p)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		rs = append(rs, r)
	}
	m, err := loadtest.Merge(rs)
	if err != nil {
		return err
	}
	if err := loadtest.WriteSummary(stdout, m); err != nil {
		return err
	}
	if *out != "" {
		return m.WriteJSON(*out)
	}
	return nil
}
