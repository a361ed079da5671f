package bbs

import (
	"net/http"
	"testing"
	"time"

	"bbslab/commands"
	"bbslab/entity/fake"
)

// BenchmarkMetricsRequest measures recording one finished request in the
// metrics, as observe does for every public request.
//
//	go test -run '^$' -bench MetricsRequest -benchmem ./bbs
func BenchmarkMetricsRequest(b *testing.B) {
	s := New(Options{Store: fake.New(1)})
	n := &note{command: commands.EachGetView.Name(), reachedWorker: true, queueWait: time.Microsecond, tally: commands.Tally{Queries: 30, Acquires: 30}}
	b.ReportAllocs()
	for b.Loop() {
		s.metrics.request(n, http.StatusOK, 300*time.Microsecond)
	}
}
