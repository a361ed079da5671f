// Package loadtest is an HTTP/1.1 load generator library in the spirit of
// JMeter's models and JBentoGohan's efficiency.
//
// It drives a target with a number of simulated clients, each a goroutine
// owning one keep-alive connection, under one of three load models:
//
//   - ModelDelay (Fixed Delay, closed): the next request starts one think
//     time after the response arrived.
//   - ModelRate (Fixed Rate, per client): the next request starts one think
//     time after the previous one was due to be sent; a late response makes
//     the next request start at once, the lag is recorded and latency counts
//     from the intended start time (no coordinated omission).
//   - ModelOpen: arrivals at a fixed rate regardless of responses, with at
//     most Clients requests in flight; arrivals that find every connection
//     busy are dropped and counted.
//
// Think times follow JMeter's timers (see Timer). Latencies go into
// HdrHistograms (1 µs to 60 s, 3 significant digits) per label and per
// second; errors are counted by kind and kept out of the latency figures.
// Every Result carries the generator's own cost (CPU, memory, GC, schedule
// lag) and says when the generator itself may have been the bottleneck.
//
// The HTTP client is a lean HTTP/1.1 implementation over net.Conn (plain
// http:// only): requests without templates are rendered once, responses are
// parsed in place and bodies are discarded while their bytes are counted.
//
// Entry points: Run for one run, Sweep for one run per client count,
// ReadResult / Result.WriteJSON for the versioned JSON format described in
// SCHEMA.md, ReadJTL / JTLWriter for JMeter's CSV results, Merge for results
// of several generator machines, ParseSLO / EvaluateSLO for deadlines,
// WriteSweepCharts and WriteTimelineCharts for SVG and PNG charts.
package loadtest
