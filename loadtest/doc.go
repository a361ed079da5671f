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
// Sweep does one run per client count. The packages above the engine take
// its Result (loadtest/text, resultfile, merge, chart, watch, experiment);
// the engine imports none of them and knows nothing of its target
// (docs/layout.md has the map).
//
// A run hands out each second's row to Settings.Observers, called in order
// from Run's goroutine (one row a second needs no channel), the Result at
// the end, and, when Settings.JTL is set, one JMeter CSV line per measured
// request, written by each client from its own buffer to keep the hot path
// free of channel sends.
//
// Clients each own one keep-alive connection, under one of three load
// models: ModelDelay (closed), ModelRate (fixed rate per client, latency
// from the intended start: no coordinated omission) and ModelOpen
// (arrivals at a fixed rate, at most Clients in flight, the rest dropped).
// Think times follow JMeter's timers (Timer). Latencies go into
// HdrHistograms per label and per second; errors are counted by kind and
// kept out of the latency figures. Every Result carries the generator's
// own cost and says when the generator may have been the bottleneck.
//
// The HTTP client is a lean HTTP/1.1 implementation over net.Conn (with
// crypto/tls for https://): static requests are rendered once and response
// bodies are counted and discarded. Generators on several machines start
// together with Settings.StartAt (ParseStartAt).
package loadtest
