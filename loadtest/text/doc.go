// Package text writes load-test results as the text a person reads:
//
//	text.WriteSummary(os.Stdout, res, watch.Summary(res)...)
//	text.WriteSweepTable(os.Stdout, runs, watch.Columns(target.Stats))
//	text.WriteObjectiveResults(os.Stdout, loadtest.EvaluateSLO(res, objectives))
//	text.WriteEnvironmentWarning(os.Stdout, results)
//
// A run's summary is vegeta's text report with what the lab adds; a sweep
// is one line per run. When results ran in different environments, a
// warning names what differs.
package text
