// Package grade holds a load tool's results against the server's own
// record of the same window (its truth, GET /admin/truth: Truth) and says
// whether the tool told the truth, as "loadtest grade" does:
//
//	go run ./cmd/loadtest grade -server http://127.0.0.1:6060 run.json wrk.txt hey.csv
//	err := grade.Run(ctx, grade.Options{Server: "http://127.0.0.1:6060"}, files, os.Stdout)
//
// For each tool file it reports requests sent and served, throughput,
// latency percentiles beside the server's and those the stalls' requests
// should have seen, and three checks: counts agree (within 0.5 %), no
// percentile below the server's, and stalls visible (more than 25 % of the
// stalls' requests unsent or missing from the tail is coordinated
// omission).
//
// A file is graded only against a truth whose window covers its span
// (within the larger of 100 ms and 1 %); otherwise, or when a needed
// per-request log is missing, the grade exits 2 naming the window, the
// tool's span and the command that opens a window.
//
// Inputs, recognised from the content or named with -format (the formats
// are specified in docs/grading.md): loadtest (this lab's run or sweep
// JSON), jtl (JMeter's CSV results), vegeta (`vegeta encode --to json`),
// hey (`hey -o csv`: offsets only, placed by the truth's per-second
// counts or -window), wrk (its --latency text; wrk corrects its
// percentiles for coordinated omission: Correction), k6 (`k6 run --out
// json=FILE`, written here to k6's documented format) and generic (any
// tool through a converter: CSV or JSON lines, one request a row).
//
// The truth is defined here, not imported from the server: the tools
// import nothing of the board (docs/layout.md).
package grade
