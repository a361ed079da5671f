package main

import (
	"context"
	"io"
)

func cmdSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error  { return nil }
func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error { return nil }
func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error  { return nil }
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error  { return nil }
func cmdTarget(ctx context.Context, args []string, stdout, stderr io.Writer) error { return nil }
