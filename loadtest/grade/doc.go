// Package grade holds a load tool's results against the server's own
// record of the same window (its truth, GET /admin/truth: Truth) and says
// whether the tool told the truth: `loadtest grade`.
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
//     missing is coordinated omission, reported with the share never sent.
//
// Inputs, recognised from the content or named with -format:
//
//   - loadtest: this lab's run or sweep JSON (../SCHEMA.md), read with
//     loadtest.ReadRuns; no per-request data: counts and percentiles from
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
//   - wrk: the text wrk --latency prints: "N requests in D", the Latency
//     Distribution (50/75/90/99 %), the thread stats' Latency max,
//     "Non-2xx or 3xx responses" and "Socket errors". No per-request data
//     and no times: counts and percentiles are graded, and the stall check
//     is "cannot tell" unless its tail reaches the stall.
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
