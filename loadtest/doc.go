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
// Sweep does one run per client count. The packages above the engine
// (loadtest/text, resultfile, merge, chart, watch, experiment) take its
// Result; the engine imports none of them and knows nothing of its target.
//
// Clients each own one keep-alive connection, under one of three load
// models: ModelDelay (closed), ModelRate (fixed rate per client, latency
// from the intended start: no coordinated omission) and ModelOpen
// (arrivals at a fixed rate, at most Clients in flight, the rest dropped).
// Think times follow JMeter's timers (Timer). A run hands each second's
// row to Settings.Observers and, when Settings.JTL is set, writes one
// JMeter CSV line per measured request. Latencies go into HdrHistograms
// per label and per second; errors are counted by kind and kept out of the
// latency figures. Every Result carries the generator's own cost and says
// when the generator may have been the bottleneck.
package loadtest
