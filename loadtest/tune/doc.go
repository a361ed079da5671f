// Package tune walks the article's spiral on a running target, one
// measured step at a time: set the worker limit and the pool, measure the
// setting with repeats (after the first step, side by side with the best
// so far), read the target's own readings over exactly the measured
// spans, name what limits it in the article's order (Diagnose), move the
// knob the readings point at, and stop when the objectives are met and no
// neighbouring setting beat the best side by side, when the limit is the
// hardware or the application, or when the budget is spent:
//
//	spec := tune.Spec{Load: s, Admin: "http://127.0.0.1:6060", Objectives: objs, Start: watch.Knobs{Workers: 5, Pool: 5}, Steps: 12}
//	res, err := tune.Run(ctx, spec, contract.Board, tune.Options{Logf: logf})
//
// The tuner names nothing of its target: what it knows of one (which of
// its stats show a worker wait, a connection wait, its CPU, the database's
// time, how its knobs are set) it is given as watch.Target.Tuning (for the
// board, package contract fills it). "loadtest tune" is its command. Its
// knobs are a list (Spec.Knobs: the workers and the pool, and any others),
// its measurements a Measurer's (the live one drives the load engine), and
// whether a measurement stands and what a comparison says are package
// measure's rules.
//
// A machine shared with others has slow spells that no reading shows, so
// no step is held against a figure measured earlier: each step after the
// first measures its setting and the best so far in Repeats interleaved
// rounds (measure.Rounds) and is decided on those rounds only, by the
// core's side-by-side rules: the median of their round-by-round throughput
// ratios against Rules.Within (measure.Ratios), or every round beyond the
// noise floor (measure.Band, measure.Beyond); as good as each other,
// the one with the fewest workers and connections wins, as long as it
// stays within Within of the highest level measured (levels chain the
// ratios from the first step, so that "as good" steps cannot drift
// down). The best changes only
// when a step wins; a best that misses beside a step an objective it met
// when it became the best marks the rounds as a slow spell, and the pair
// is measured again.
package tune
