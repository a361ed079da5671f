// Package claim decides an experiment's claims from its results, and
// writes the findings the results support without a claim:
//
//	decided := claim.Evaluate(e.Claims, res, res.Quick) // []outcome.Claim
//	findings := claim.Verdicts(res, disk)
//
// A Claim is what an experiment file's [[claim]] says, traced to its
// source, with checks that compare two sides: a constant, or a figure of
// a run at a point (a metric, a server reading, a profile bucket's share,
// a truth figure, a tuning's figure). Each measured side is a range over
// the point's used repeats; a check is reproduced when the comparison
// holds for every pair of values, not reproduced when it fails for every
// pair, and inconclusive otherwise; interleaved runs are compared repeat
// by repeat. A claim's Control is the same checks where the effect is
// absent: the claim is reproduced only when its control is not. An
// Explanation says, when a claim fails, what the readings say instead.
// The package reads results (package outcome) and knows nothing of
// running: checking a file's claims against its runs is the runner's.
package claim
