package loadtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// delayServer answers after delay with a small page and counts requests.
func delayServer(t *testing.T, delay time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if delay > 0 {
			time.Sleep(delay)
		}
		w.Write([]byte("<html>hello</html>"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// skipShort skips a check of a load model's timing under -short: each
// runs the engine for seconds against a server with known delays and holds
// the throughput or latency it measured to the model's formula. The models
// still run under -short in TestEveryModelStopsByItsBound and the tests of
// warm-up, drain and faults.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a load model's timing check: long; runs without -short")
	}
}

// mustRun runs s and fails the test on error.
func mustRun(t *testing.T, s Settings) *Result {
	t.Helper()
	if s.Seed == 0 {
		s.Seed = 1
	}
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// within reports whether got is within frac of want.
func within(got, want, frac float64) bool {
	return got >= want*(1-frac) && got <= want*(1+frac)
}
