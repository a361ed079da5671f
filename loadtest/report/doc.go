// Package report writes an experiment's report folder from its result:
//
//	err := report.Write("report", res, report.Options{Disk: disk, Charts: charts, Lang: "ja"})
//
// The folder holds experiment.json, charts/ (SVG and PNG), report.md,
// which opens with the claims and their controls, and index.html, which
// opens offline with its charts inline (with Frames, the live dashboard
// with the report's sections below it). Lang "ja" puts headings, captions
// and outcomes in Japanese.
package report
