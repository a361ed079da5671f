// Package grade holds a load tool's results against the server's own
// record of the same window (its truth, GET /admin/truth: Truth) and says
// whether the tool told the truth, as "loadtest grade" does:
//
//	go run ./cmd/loadtest grade -server http://127.0.0.1:6060 run.json wrk.txt hey.csv
//	err := grade.Run(ctx, grade.Options{Server: "http://127.0.0.1:6060"}, files, os.Stdout)
//
// For each tool file it reports requests sent and served, throughput,
// latency percentiles beside the server's, the latency the stalls'
// requests should have seen (arriving at a in a stall [s, e], a request
// waits e - a, then the server's median service time), and three checks:
//
//   - counts agree: the tool's responses within 0.5 % of the requests the
//     server served in the seconds of the tool's span;
//   - no percentile below the server's: a client cannot see less than the
//     server's time for the same requests (beyond the format's resolution
//     and 1 %);
//   - stalls visible: when the truth has stalls, the tool sent the
//     requests its own rate outside them puts in them, and its tail holds
//     them (latencies at or above half the shortest stall); more than 25 %
//     missing is coordinated omission, reported with the share never sent
//     or missing from the tail.
//
// A file is graded only against a truth whose window covers its span
// (within the larger of 100 ms and 1 % of the span, the lab's clock
// tolerance): none opened, opened after the tool began, closed before it
// ended, or another run's window is not the tool's fault, so the grade
// exits 2 naming the window, the tool's span and the command that opens a
// window; likewise a per-request log that is needed (an offsets-only file
// with stalls in the window) and missing, cut at its cap, or another
// window's.
//
// Inputs, recognised from the content or named with -format:
//
//   - loadtest: this lab's run or sweep JSON (../SCHEMA.md), read with
//     resultfile.Read; no per-request data: counts and percentiles from
//     the total, the tail from its histogram, the rate from the series.
//   - jtl: JMeter's CSV results (loadtest.JTLHeader's columns, JMeter's
//     default), per sample timeStamp (epoch ms), elapsed (ms), responseCode.
//   - vegeta: `vegeta encode --to json`, one object a line, the fields of
//     Result in tsenart/vegeta lib/results.go: timestamp (send, RFC 3339),
//     latency (ns), code (0: no response), bytes_in, bytes_out, error.
//   - hey: `hey -o csv`, the header of rakyll/hey requester/print.go's
//     csvTmpl: response-time,DNS+dialup,DNS,Request-write,Response-delay,
//     Response-read,status-code,offset (seconds; offset since the run's
//     start). Successful requests only, and offsets only: the file is
//     matched to the span of its length in the truth's per-second counts
//     closest to its own (the latest on a tie), or placed at -window.
//   - wrk: the text wrk --latency prints: "N requests in D", "T threads
//     and C connections", the Latency Distribution (50/75/90/99 %), the
//     thread stats' Latency avg and max, "Non-2xx or 3xx responses" and
//     "Socket errors". No per-request data and no times: counts and
//     percentiles are graded, and the stall check passes when its tail
//     reaches half the shortest stall. It fails when its max, a request's,
//     does not, though requests were due in a stall that ended while wrk
//     ran and every request got a response: none of the stall's requests
//     is in its tail (coordinated omission, by the same 25 % rule). It
//     cannot tell otherwise. wrk's percentiles, mean and stdev are not
//     of its requests: wrk 4.0 and later corrects its latency record for
//     coordinated omission before printing it (wrk's src/stats.c,
//     stats_correct, called from src/wrk.c; its commit "remove calibration
//     & improve CO correction"), adding synthetic samples below every
//     latency of at least twice its mean interval per connection
//     (Correction). The grade labels wrk's row "corrected", checks its mean
//     by Little's law, and says when a percentile reaching a stall is the
//     correction's rather than its requests'; its max is a request's.
//   - k6: `k6 run --out json=FILE` as Grafana's k6 documentation
//     (results-output/real-time/json) describes it: lines of {"type":
//     "Metric"|"Point", "metric", "data"}; the Points of http_req_duration,
//     data.time taken as the request's end, data.value in ms,
//     data.tags.status. k6 cannot be installed here: the fixture and tests
//     use a file written to that documented format, not one k6 wrote.
//   - generic: any tool's results through a converter, CSV with a header
//     or JSON lines, one request a row: its send time (start: RFC 3339;
//     start_unix_s|ms|us|ns: Unix epoch; offset or offset_s|ms|us|ns from
//     the run's start, given by a "# start=" line or placed like hey's),
//     latency (latency: a Go duration; latency_s|ms|us|ns), status (0 or
//     empty: no response, with an error), optional bytes, error, x_*. Every
//     bad row is an error naming its line. docs/grading.md specifies it.
//
// The truth is defined here, not imported from the server: the tools
// import nothing of the board (docs/layout.md).
package grade
