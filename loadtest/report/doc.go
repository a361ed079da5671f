// Package report writes an experiment's report folder from its result:
//
//	err := report.Write("report", res, report.Options{Disk: disk, Charts: charts, Lang: "ja"})
//
// The folder holds experiment.json (everything measured), charts/ (SVG and
// PNG, drawn by package chart), report.md, which opens with the claims and
// their controls, and index.html, which opens offline with its charts
// inline; with the dashboard's frames index.html is the live dashboard
// with every second inlined and the report's sections below it. Headings,
// captions and outcomes read in Japanese with Lang "ja". Everything in it
// is computed from the result (package outcome): the tables of each run's
// points with their ranges, the re-measured points, the calibrations, the
// tunings, the environment, the profiles side by side. It knows nothing
// of running.
package report
