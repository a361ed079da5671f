package fleetwatch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"bbslab/loadtest/watch"
)

// TestReadSources reads a fleet whose sources fail in every way: a
// replica answering 500, HAProxy and PgBouncer refusing connections,
// PostgreSQL's DSN malformed. The document still comes, each failure
// named in its sources, the replica that answered summed alone, within
// the timeout.
func TestReadSources(t *testing.T) {
	var n atomic.Int64
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"commands":{"A":{"requests":%d}},"workers":{"busy":3},"config":{"pool":4}}`, n.Add(10))
	}))
	defer good.Close()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 500) }))
	defer bad.Close()
	closed := httptest.NewServer(nil)
	closed.Close()
	f, err := New(Options{
		Target:     watch.Target{EnvironmentKeys: []string{"config"}, RequestPaths: []string{"commands.A.requests", "commands.B.requests"}},
		Replicas:   []Replica{{Name: "r1", StatsURL: good.URL}, {Name: "r2", StatsURL: bad.URL}},
		HAProxyURL: closed.URL + "/metrics", PgBouncerDSN: strings.Replace(closed.URL, "http://", "postgres://x@", 1) + "/pgbouncer?connect_timeout=1",
		PostgresDSN: "postgres://%zz",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	b, err := json.Marshal(f.Read(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Read took %v; want within its timeout (800 ms) and a little", d)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	src := doc["sources"].(map[string]any)
	for name, up := range map[string]float64{"replica r1": 1, "replica r2": 0, "haproxy": 0, "pgbouncer": 0, "postgres": 0} {
		s, ok := src[name].(map[string]any)
		if !ok || s["up"] != up || up == 0 && s["error"] == nil {
			t.Errorf("sources[%q] = %v; want up %v, with an error when down", name, src[name], up)
		}
	}
	if _, ok := doc["haproxy"]; ok {
		t.Errorf("a failed HAProxy read left a reading: %v", doc["haproxy"])
	}
	sum := doc["sum"].(map[string]any)
	if sum["requests_total"] != 10.0 || doc["fleet"].(map[string]any)["up"] != 1.0 || doc["config"] == nil {
		t.Errorf("sum %v, fleet %v, config %v; want r1's 10 requests alone, one up, r1's config", sum, doc["fleet"], doc["config"])
	}
	if _, ok := doc["replicas"].(map[string]any)["r2"]; ok {
		t.Errorf("r2, never read, is in the document")
	}
	rec := httptest.NewRecorder()
	f.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if ct := rec.Header().Get("Content-Type"); rec.Code != 200 || ct != "application/json" || !json.Valid(rec.Body.Bytes()) {
		t.Errorf("Handler: %d %q, valid JSON %v; want 200 application/json", rec.Code, ct, json.Valid(rec.Body.Bytes()))
	}
}
