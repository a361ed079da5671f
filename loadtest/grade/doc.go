// Package grade holds a load tool's results against the server's own
// record of the same window (its truth, GET /admin/truth: Truth) and says
// whether the tool told the truth, as "loadtest grade" does:
//
//	go run ./cmd/loadtest grade -server http://127.0.0.1:6060 run.json wrk.txt hey.csv
//	err := grade.Run(ctx, grade.Options{Server: "http://127.0.0.1:6060"}, files, os.Stdout)
//
// For each tool file it reports requests, throughput, latency percentiles
// and three checks: counts agree, no percentile below the server's, and
// stalls visible (no coordinated omission).
//
// A file is graded only against a truth whose window (and log, when
// needed) covers its span; otherwise the grade exits 2 saying how to open one.
//
// Inputs (loadtest, jtl, vegeta, hey, wrk, k6, generic) are recognised
// from the content or named with -format; docs/grading.md specifies them.
//
// The truth is defined here, not imported from the server: the tools
// import nothing of the board (docs/layout.md).
package grade
