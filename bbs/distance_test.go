package bbs

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/entity"
	"bbslab/entity/fake"
)

// distantStore is the fake store with a database at a distance.
type distantStore struct {
	*fake.Store
	n *network
}

func (d distantStore) Network() entity.Network { return d.n }

// network is a hand-written entity.Network: the wait in force, which
// nothing waits.
type network struct {
	mu       sync.Mutex
	lat, jit time.Duration
}

func (n *network) Latency() (latency, jitter time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.lat, n.jit
}

func (n *network) SetLatency(latency, jitter time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lat, n.jit = latency, jitter
}

func TestSetDistance(t *testing.T) {
	n := &network{}
	s := New(Options{Store: distantStore{fake.New(10), n}, Workers: 2, SeedPosts: 10})
	ts := httptest.NewServer(s.AdminHandler())
	defer ts.Close()
	post := func(q string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+"/admin/distance?"+q, nil)
		resp, body := do(t, req)
		return resp.StatusCode, body
	}

	code, body := post("db_latency=1.25ms")
	var got DistanceStats
	if err := json.Unmarshal([]byte(body), &got); err != nil || code != 200 || got.DBLatency != "1.25ms" || got.DBLatencySeconds != 0.00125 {
		t.Fatalf("POST db_latency=1.25ms: %d %s (%v)", code, body, err)
	}
	if l, j := n.Latency(); l != 1250*time.Microsecond || j != 0 {
		t.Errorf("after POST the network waits %v ± %v; want 1.25ms ± 0", l, j)
	}
	// The jitter alone keeps the latency.
	if code, body := post("db_latency_jitter=100us"); code != 200 {
		t.Fatalf("POST jitter: %d %s", code, body)
	}
	if l, j := n.Latency(); l != 1250*time.Microsecond || j != 100*time.Microsecond {
		t.Errorf("after the jitter the network waits %v ± %v; want 1.25ms ± 100µs", l, j)
	}
	if _, body := get(t, ts.URL+"/admin/distance"); !strings.Contains(body, `"db_latency":"1.25ms"`) {
		t.Errorf("GET /admin/distance = %s; want db_latency 1.25ms", body)
	}
	for _, bad := range []string{"db_latency=x", "db_latency=-1ms", "db_latency=11s", "db_latency_jitter=fast", ""} {
		code, body := post(bad)
		key := "db_latency"
		if strings.HasPrefix(bad, "db_latency_jitter") {
			key = "db_latency_jitter"
		}
		if code != 400 || !strings.Contains(body, key) {
			t.Errorf("POST %q = %d %s; want 400 naming %s", bad, code, body, key)
		}
	}
	if l, _ := n.Latency(); l != 1250*time.Microsecond {
		t.Errorf("a refused value changed the wait to %v", l)
	}
	if resp, _ := get(t, ts.URL+"/admin/distance?db_latency=1ms"); resp.StatusCode != 200 {
		t.Errorf("GET with a value: %d; want 200 (GET reads, never sets)", resp.StatusCode)
	}
	if l, _ := n.Latency(); l != 1250*time.Microsecond {
		t.Errorf("a GET changed the wait to %v", l)
	}
}

func TestSetDistanceWithoutNetwork(t *testing.T) {
	s := New(Options{Store: fake.New(10), Workers: 2, SeedPosts: 10})
	ts := httptest.NewServer(s.AdminHandler())
	defer ts.Close()
	req, _ := http.NewRequest("POST", ts.URL+"/admin/distance?db_latency=1ms", nil)
	if resp, body := do(t, req); resp.StatusCode != http.StatusConflict || !strings.Contains(body, "db_latency") {
		t.Errorf("POST to a store without a network: %d %s; want 409 naming db_latency", resp.StatusCode, body)
	}
}
