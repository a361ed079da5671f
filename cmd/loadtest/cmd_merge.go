package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/merge"
	"bbslab/loadtest/text"
)

// cmdMerge combines results from several generator machines.
func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the merged result as JSON to `file`")
	disjoint := fs.Bool("allow-disjoint", false, "merge results whose measured windows do not overlap at all (refused otherwise)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loadtest merge [-out FILE] [-allow-disjoint] RESULT.json ...")
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
	now := time.Now() // the one reading of the clock: messages omit today's date
	m, err := merge.Results(rs, merge.Options{AllowDisjoint: *disjoint, Now: now})
	if errors.Is(err, merge.ErrDisjoint) {
		return cli.Usagef("%v (the files in the order given); start the generators with one -start-at, or give -allow-disjoint to merge them anyway", err)
	}
	if err != nil {
		return err
	}
	if m.Overlap != nil && m.Overlap.Warning != "" {
		fmt.Fprintln(stderr, "warning:", m.Overlap.Warning)
	}
	if err := merge.WriteOverlap(stdout, m.Overlap, fs.Args(), now); err != nil {
		return err
	}
	if err := text.WriteSummary(stdout, m); err != nil {
		return err
	}
	if *out != "" {
		return m.WriteJSON(*out)
	}
	return nil
}
