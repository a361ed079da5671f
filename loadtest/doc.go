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
// The engine imports none of the packages above it and knows nothing of its
// target. Each client owns one keep-alive connection under one of three
// load models: ModelDelay (closed), ModelRate (a fixed rate per client) and
// ModelOpen (arrivals at a fixed rate, at most Clients in flight); under the
// last two latency counts from the intended start (no coordinated
// omission). Think times follow JMeter's timers (Timer). Every Result
// carries the generator's own cost and says when it may have been the
// bottleneck.
package loadtest
