package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"bbslab/internal/child"
	"bbslab/internal/cli"
	"bbslab/loadtest/disturb"
)

// cmdDisturb keeps CPUs busy on a schedule (package disturb), for showing
// an experiment catching other work on the machine.
func cmdDisturb(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("disturb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var s disturb.Schedule
	cpus := fs.String("cpu", "0", "comma-separated `CPUs` to keep busy in each burst (one spinning thread each, pinned where the system allows)")
	cli.BindFlags(fs, &s)
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	list, err := cpuList(*cpus)
	if err != nil {
		return cli.Usagef("disturb: -cpu %q: %v", *cpus, err)
	}
	if err := s.Check(); err != nil {
		return cli.Usagef("disturb: %v", err)
	}
	if err := child.CanPin(list...); err != nil {
		fmt.Fprintf(stdout, "not pinned (%v): the OS chooses the cores the bursts run on\n", err)
	}
	err = disturb.Run(ctx, s, disturb.CPU(list), stdout)
	if errors.Is(err, context.Canceled) {
		return cli.WithCode(cli.ExitInterrupted, errors.New("disturb: interrupted; the burst in progress was stopped"))
	}
	return err
}

// cpuList parses a comma-separated list of CPU numbers, at least one.
func cpuList(s string) ([]int, error) {
	var list []int
	for _, c := range cli.Items(s) {
		n, err := strconv.Atoi(c)
		if err != nil || n < 0 || n > 1023 {
			return nil, errors.New("want comma-separated CPU numbers")
		}
		list = append(list, n)
	}
	if len(list) == 0 {
		return nil, errors.New("want at least one CPU")
	}
	return list, nil
}
