package loadtest

import "fmt"

// A Model is a load model: how a client decides when to send its next
// request.
type Model string

// The load models (JBentoGohan's article: Fixed Delay vs Fixed Rate).
const (
	// ModelDelay is Fixed Delay (closed): the next request starts one think
	// time after the response arrives. Throughput is clients/(think+response).
	ModelDelay Model = "delay"
	// ModelRate is Fixed Rate per client: the next request is due one think
	// time after the previous one was due. A late response makes the next
	// request start at once; latency counts from the intended start.
	// Throughput is clients/think until responses outgrow the think time.
	ModelRate Model = "rate"
	// ModelOpen sends arrivals at Settings.Rate per second regardless of
	// responses, with at most Settings.Clients requests in flight. Arrivals
	// that find all connections busy are dropped and counted.
	ModelOpen Model = "open"
)

// ParseModel returns the Model named s.
func ParseModel(s string) (Model, error) {
	switch m := Model(s); m {
	case ModelDelay, ModelRate, ModelOpen:
		return m, nil
	case "":
		return ModelDelay, nil
	}
	return "", fmt.Errorf("unknown model %q (want delay, rate or open)", s)
}
