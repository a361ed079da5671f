// Package text writes load-test results as the text a person reads:
//
//	text.WriteSummary(os.Stdout, res, watch.Summary(res)...)
//	text.WriteSweepTable(os.Stdout, runs, watch.Columns(target.Stats))
//	text.WriteObjectiveResults(os.Stdout, loadtest.EvaluateSLO(res, objectives))
//	text.WriteEnvironmentWarning(os.Stdout, results)
//
// A run's summary is vegeta's text report of the total (requests,
// duration, latencies, bytes, success, status codes, error set), a table
// by label, then what the lab adds: errors by kind, the open model's
// drops, the generator's cost, the lines the watcher gives, the timeline
// and the warnings. A sweep is one line per run, like the article's
// tables. When results ran in different environments (machines, builds,
// the server's database or knobs), a warning names what differs.
package text
