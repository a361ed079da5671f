package contract_test

import (
	"io"
	"net/http"
	"testing"

	"bbslab/loadtest/contract"
)

// TestFleetNames checks what the board tells a fleet's watcher: each name
// in Each is a stat with a path that is no per-request figure (a replica's
// per-request wait would need its own request count), and the request
// counters add up to the requests the real handler answered.
func TestFleetNames(t *testing.T) {
	byName := map[string]bool{}
	for _, s := range contract.Board.Stats {
		byName[s.Name] = s.Path != "" && !s.PerRequest
	}
	for _, name := range contract.Board.Each {
		if !byName[name] {
			t.Errorf("Each names %q: want a stat of the board with a path, not per request", name)
		}
	}
	b := newBoard(t, nil)
	before := b.stats(t)
	for _, cmd := range []string{"AllView", "OnceGetView", "EachGetView", "AllView"} {
		resp, err := http.Get(b.pub.URL + "/bbs?n=5&cmd=" + cmd)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	after := b.stats(t)
	var n float64
	for _, p := range contract.Board.RequestPaths {
		v1, ok1 := lookup(after, p)
		v0, ok0 := lookup(before, p)
		f1, num1 := v1.(float64)
		f0, num0 := v0.(float64)
		if !ok0 || !ok1 || !num0 || !num1 {
			t.Errorf("request path %q: %v, %v; want a number in /admin/stats", p, v0, v1)
			continue
		}
		n += f1 - f0
	}
	if n != 4 {
		t.Errorf("the request counters rose by %v; want the 4 requests sent", n)
	}
}
