// Package loadtest is an HTTP/1.1 load generator library in the spirit of
// JMeter's models and JBentoGohan's efficiency. Describe the load in
// Settings and call Run; it blocks until the run is over and returns the
// Result:
//
//	res, err := loadtest.Run(ctx, loadtest.Settings{
//		Requests:  []loadtest.Request{{URL: "http://127.0.0.1:8080/"}},
//		Clients:   50,
//		Think:     100 * time.Millisecond,
//		Warmup:    5 * time.Second,
//		Duration:  30 * time.Second,
//		Observers: []loadtest.Observer{&loadtest.Progress{W: os.Stderr}},
//	})
//	if err != nil {
//		return err // the settings were invalid
//	}
//	res.WriteJSON("run.json")
//
// Sweep does one run per client count; the examples show both. The
// packages above the engine take its Result: loadtest/text prints it,
// loadtest/resultfile reads results files back (this lab's JSON, JMeter's
// JTL), loadtest/merge combines the results of several generator machines,
// loadtest/chart draws them; loadtest/watch watches the target during a
// run, and loadtest/experiment runs whole experiments. The engine knows
// nothing of its target and imports none of them: what the tools know of
// the board is handed to them as data (loadtest/contract; docs/layout.md
// has the map and the dependency rule).
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
//   - At the end, the Result, which its readers take whole (Result.WriteJSON
//     and SCHEMA.md's format, EvaluateSLO, and the packages above), as
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
// # How it loads
//
// It drives a target with a number of simulated clients, each owning one
// keep-alive connection, under one of three load models:
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
// crypto/tls for https://: requests without templates are rendered once,
// responses are parsed in place and bodies are discarded while their bytes
// are counted; each Stats counts responses by status code and failures by
// error text, as vegeta's report does. Generators on several machines
// start together with Settings.StartAt (ParseStartAt), so that their
// windows can be merged.
package loadtest
