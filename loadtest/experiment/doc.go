// Package experiment runs an experiment described in a TOML file
// (loadtest/experiments/*.toml, docs/experiments.md), as "loadtest
// experiment" does:
//
//	e, err := experiment.Load("loadtest/experiments/article.toml")
//	res, err := experiment.Run(ctx, e, experiment.Options{Out: "report", Target: contract.Board, Log: os.Stderr})
//
// For each run it starts a server, resets and validates it, and measures
// each client count while package watch reads the server; a step that
// other work disturbed is measured again. Then it decides the file's
// claims (package claim) and writes a report folder (package report).
// What the runner knows of its target comes in Options.Target.
package experiment
