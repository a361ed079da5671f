// Package report writes an experiment's report folder from its result:
//
//	err := report.Write("report", res, report.Options{Disk: disk, Charts: charts, Lang: "ja"})
//
// The folder holds experiment.json, charts/, report.md and index.html, which
// opens offline (with Frames, the live dashboard above the report).
package report
