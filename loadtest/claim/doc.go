// Package claim decides an experiment's claims from its results, and
// writes the findings the results support without a claim:
//
//	decided := claim.Evaluate(e.Claims, res, res.Quick) // []outcome.Claim
//	findings := claim.Verdicts(res, disk)
//
// A Claim is an experiment file's [[claim]]: checks that compare two sides,
// a constant or a figure of a run at a point over its used repeats.
package claim
