package loadtest

import "fmt"

// A Model is a load model: when a client sends its next request.
type Model string

// The load models (see the package doc).
const (
	ModelDelay Model = "delay" // Fixed Delay: think after the response
	ModelRate  Model = "rate"  // Fixed Rate per client: think after the previous due time
	ModelOpen  Model = "open"  // arrivals at Settings.Rate, at most Clients in flight
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
