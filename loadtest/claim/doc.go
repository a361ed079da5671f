// Package claim decides an experiment's claims from its results, and
// writes the findings the results support without a claim:
//
//	decided := claim.Evaluate(e.Claims, res, res.Quick) // []outcome.Claim
//	findings := claim.Verdicts(res, disk)
//
// A Claim is what an experiment file's [[claim]] says, with checks that
// compare two sides: a constant, or a figure of a run at a point, a range
// over the point's used repeats. A check is reproduced when the comparison
// holds for every pair of values, not reproduced when it fails for every
// pair, inconclusive otherwise; interleaved runs are compared repeat by
// repeat. A claim is reproduced only when its Control, the same checks
// where the effect is absent, is not.
package claim
