package bbs

import (
	"net/http"
	"testing"
	"time"

	"bbslab/commands"
	"bbslab/entity/fake"
	"bbslab/occupancy"
)

// BenchmarkMetricsRequest measures recording one finished request in the
// metrics, as observe does for every public request.
//
//	go test -run '^$' -bench MetricsRequest -benchmem ./bbs
func BenchmarkMetricsRequest(b *testing.B) {
	s := New(Options{Store: fake.New(1)})
	q := &record{end: occupancy.Stamp(300 * time.Microsecond), command: commands.EachGetView.Name(), reachedWorker: true,
		cost: cost{Tally: commands.Tally{Queries: 30, Acquires: 30}, QueueWait: time.Microsecond}}
	b.ReportAllocs()
	for b.Loop() {
		s.metrics.request(q, http.StatusOK)
	}
}
