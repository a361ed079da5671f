// Package experiment runs an experiment described in a TOML file
// (loadtest/experiments/*.toml, docs/experiments.md), as "loadtest
// experiment" does:
//
//	e, err := experiment.Load("loadtest/experiments/article.toml")
//	res, err := experiment.Run(ctx, e, experiment.Options{Out: "report", Target: contract.Board, Log: os.Stderr})
//
// For each run it starts a server process, waits until it is ready, resets
// and validates it, measures each client count (repeatedly, runs in turn
// or interleaved) with the loadtest engine while package watch polls the
// server's stats and profiles it, stops the server, then decides the
// claims the file makes (package claim) and writes a report folder
// (package report: experiment.json, report.md, the charts and index.html,
// the live dashboard's page with every second inlined and the report's
// sections below it). Its Result is package outcome's. As it
// goes it feeds the live dashboard (package live, through live/feed): every
// second of load, each step and the claims decidable so far. A step during
// which other work on the machine took the server's cores beyond the
// baseline (or whose CPU per request is off its point's other repeats) is
// measured again, kept in the results and left out of the figures and the
// claims. With [calibrate], it first sets the server's database wait so
// that the load lands on the operating point the file names (package
// calibrate), and sets it again between sweeps when the machine moved.
//
// The runner is generic: what it knows of its target comes in
// Options.Target, one watch.Target (its validation, stats, environment,
// charts, start hint, disk table, request states and limits); for the
// board cmd/loadtest passes contract.Board from package loadtest/contract.
package experiment
