// Package text writes load-test results as the text a person reads:
//
//	text.WriteSummary(os.Stdout, res, watch.Summary(res)...)
//	text.WriteSweepTable(os.Stdout, runs, watch.Columns(target.Stats))
//	text.WriteObjectiveResults(os.Stdout, loadtest.EvaluateSLO(res, objectives))
//	text.WriteEnvironmentWarning(os.Stdout, results)
package text
