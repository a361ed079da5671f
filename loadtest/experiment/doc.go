// Package experiment runs an experiment described in a TOML file
// (loadtest/experiments/*.toml, docs/experiments.md), as "loadtest
// experiment" does:
//
//	e, err := experiment.Load("loadtest/experiments/article.toml")
//	res, err := experiment.Run(ctx, e, experiment.Options{Out: "report", Target: contract.Board, Log: os.Stderr})
package experiment
