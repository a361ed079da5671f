// Package tune walks the article's spiral on a running target, one
// measured step at a time: set the worker limit and the pool, measure the
// setting (after the first step, side by side with the best so far), name
// what limits it (Diagnose), move the knob the readings point at, and stop
// when the objectives are met and no neighbour beat the best, when the
// limit is the hardware or the application, or when the budget is spent:
//
//	spec := tune.Spec{Load: s, Admin: "http://127.0.0.1:6060", Objectives: objs, Start: watch.Knobs{Workers: 5, Pool: 5}, Steps: 12}
//	res, err := tune.Run(ctx, spec, contract.Board, tune.Options{Logf: logf})
//
// No step is held against a figure measured earlier: a shared machine has slow spells no
// reading shows, so each step is decided on the rounds that measured it beside the best.
package tune
