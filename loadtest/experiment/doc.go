// Package experiment runs an experiment described in a TOML file
// (loadtest/experiments/*.toml, docs/experiments.md), as "loadtest
// experiment" does:
//
//	e, err := experiment.Load("loadtest/experiments/article.toml")
//	res, err := experiment.Run(ctx, e, experiment.Options{Out: "report", Target: contract.Board, Log: os.Stderr})
//
// For each run it starts a server, makes it ready, resets and validates
// it, measures each client count (repeatedly, runs in turn or
// interleaved) while package watch reads the server's stats and profiles,
// and stops it; then it decides the file's claims (package claim) and
// writes a report folder (package report), feeding the live dashboard as
// it goes. A step disturbed by other work on the machine is measured
// again and left out of the figures. With [calibrate], it first sets the
// server's database wait so that the load lands on the file's operating
// point, and sets it again between sweeps when the machine moved.
//
// What the runner knows of its target comes in Options.Target.
package experiment
