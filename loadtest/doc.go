// Package loadtest is an HTTP/1.1 load generator library in the spirit of
// JMeter's models and JBentoGohan's efficiency.
//
// Describe the load in Settings and call Run; it blocks until the run is
// over and returns the Result:
//
//	res, err := loadtest.Run(ctx, loadtest.Settings{
//		Requests: []loadtest.Request{{URL: "http://127.0.0.1:8080/"}},
//		Clients:  50,
//		Think:    100 * time.Millisecond,
//		Warmup:   5 * time.Second,
//		Duration: 30 * time.Second,
//		Observers: []loadtest.Observer{&loadtest.Progress{W: os.Stderr}},
//	})
//	if err != nil {
//		return err // the settings were invalid
//	}
//	loadtest.WriteSummary(os.Stdout, res)
//	res.WriteJSON("run.json")
//
// Sweep does one run per client count; the examples show both.
//
// # What comes out, and how
//
// A run hands out what it measured in one way at each rate it happens:
//
//   - Each second, its row (SecondRow) goes to Settings.Observers, in
//     order, from the goroutine that called Run: the progress line
//     (Progress), the live dashboard's feed, a caller's own. An observer
//     list rather than a channel as vegeta's Attack returns: with one row
//     a second there is nothing to buffer, the observers must not hold up
//     the run's clock either way, and a plain call needs no goroutine to
//     own, close or drain; Run stays one blocking call, and the order the
//     caller gave (progress line, then dashboard) is the order of the calls.
//   - At the end, the Result: the writers take it whole (Result.WriteJSON,
//     WriteSeriesCSV, WriteSummary, WriteSweepTable, EvaluateSLO), as
//     vegeta's reporters take its Metrics.
//   - Each measured request, when Settings.JTL is set, one JMeter CSV line.
//     This stream alone stays a writer, not an observer: each client
//     goroutine formats its own line from its request's record and holds a
//     lock only to copy it into one buffered writer. Handing the records
//     out instead would export the engine's internal record and put a
//     channel send or a call to a shared consumer on every request, the
//     path whose cost is measured against wrk's (loadtest bench,
//     loadtest/README.md).
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
// lag) and says when the generator itself may have been the bottleneck
// (JBentoGohan's article: a client out of CPU measures itself).
//
// The HTTP client is a lean HTTP/1.1 implementation over net.Conn, with
// crypto/tls for https:// (tls.go): requests without templates are
// rendered once, responses are parsed in place and bodies are discarded
// while their bytes are counted; each Stats counts responses by status
// code and failures by error text, as vegeta's report does.
//
// Entry points: Run for one run, Sweep for one run per client count,
// Observer and Progress for a run's seconds as it goes,
// ReadResult / Result.WriteJSON for the versioned JSON format described in
// SCHEMA.md, ReadJTL / JTLHeader for JMeter's CSV results, Merge for results
// of several generator machines (started together by Settings.StartAt and
// ParseStartAt, their windows checked and written by WriteOverlap), ParseSLO / EvaluateSLO for objectives,
// WriteSummary and WriteSweepTable for text.
//
// The engine knows nothing of its target and is the bottom of the load
// tool: the watcher, the charts, the dashboard and the experiment runner
// import it, never the reverse, and what the tools know of the board is
// handed to them as data (loadtest/contract). The package map and the
// dependency rule are in docs/layout.md.
//
// Where to read: settings.go (what a run takes), run.go (the run: clients,
// the measured window, the drain), client.go and rawconn*.go (the HTTP/1.1
// client), sched.go, alarm*.go and timer.go (when clients wake), model.go
// (the load models), metrics.go and histogram.go (recording), result.go and
// SCHEMA.md (the result), watcher.go (the Watcher interface and what it
// hands back), cost.go and usage_*.go (the generator's own cost), timeline.go
// (the first requests), environment.go (what a run ran on), scenario.go and
// template.go (requests from a file), jtl.go, csv.go and merge.go (other
// formats), startat.go and overlap.go (generators started together, their
// windows merged), slo.go and deadline.go (objectives), sweep.go and report.go
// (sweeps and text output), observer.go and progress.go (a run's seconds
// as it goes), spread.go (a figure over repeats, Median).
package loadtest
