package bbs

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"bbslab/entity/fake"
)

// BenchmarkBoardOverhead runs whole board requests on the in-memory fake
// store, whose statements cost next to nothing: what is left is the
// board's own work per request (input, worker limit, tally, headers,
// metrics, rendering).
//
//	go test -run '^$' -bench BoardOverhead -benchmem ./bbs
func BenchmarkBoardOverhead(b *testing.B) {
	s := New(Options{Store: fake.New(100), Workers: 10, Queue: 100})
	h := s.Handler()
	for _, target := range []string{"/bbs?cmd=AllView&format=json", "/bbs?cmd=EachGetView&format=json", "/bbs?cmd=AllView&format=html"} {
		b.Run(target[len("/bbs?cmd="):], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				req := httptest.NewRequestWithContext(ctx, http.MethodGet, target, nil)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				cancel()
				if w.Code != http.StatusOK {
					b.Fatalf("GET %s: %d", target, w.Code)
				}
			}
		})
	}
}
