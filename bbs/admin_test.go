package bbs

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"bbslab/entity"
	"bbslab/entity/fake"
)

func TestAdmin(t *testing.T) {
	st := fake.New(10)
	s := New(Options{Store: st, Workers: 2, Queue: 3, SeedPosts: 10})
	ts := httptest.NewServer(s.AdminHandler())
	defer ts.Close()

	resp, body := get(t, ts.URL+"/readyz")
	if resp.StatusCode != 503 || !strings.Contains(body, "starting") {
		t.Errorf("readyz before ready: %d %s", resp.StatusCode, body)
	}
	s.SetReady(true)
	if resp, body = get(t, ts.URL+"/readyz"); resp.StatusCode != 200 {
		t.Errorf("readyz: %d %s", resp.StatusCode, body)
	}
	st.Err = entity.ErrUnavailable
	if resp, body = get(t, ts.URL+"/readyz"); resp.StatusCode != 503 || !strings.Contains(body, "unreachable") {
		t.Errorf("readyz with the database down: %d %s", resp.StatusCode, body)
	}
	st.Err = nil

	if resp, _ = get(t, ts.URL+"/healthz"); resp.StatusCode != 200 {
		t.Errorf("healthz: %d", resp.StatusCode)
	}
	if resp, _ = get(t, ts.URL+"/admin/reset?posts=5"); resp.StatusCode != 405 {
		t.Errorf("GET reset: %d; want 405", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/admin/reset?posts=5", nil)
	resp, body = do(t, req)
	var r struct {
		Posts   int     `json:"posts"`
		Seconds float64 `json:"seconds"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || resp.StatusCode != 200 || r.Posts != 5 || len(st.Posts()) != 5 {
		t.Errorf("reset: %d %s (%v); store has %d posts", resp.StatusCode, body, err, len(st.Posts()))
	}
	// posts is a count and nothing else: no path reaches the store.
	for _, bad := range []string{"-1", "x", "99999999999", "..%2Fbbs.db", "%2Ftmp%2Fx", "5%00"} {
		req, _ := http.NewRequest("POST", ts.URL+"/admin/reset?posts="+bad, nil)
		if resp, _ := do(t, req); resp.StatusCode != 400 {
			t.Errorf("reset posts=%s: %d; want 400", bad, resp.StatusCode)
		}
	}
	if n := len(st.Posts()); n != 5 {
		t.Errorf("after the refused resets the store has %d posts; want the 5 of the last reset", n)
	}

	resp, body = get(t, ts.URL+"/admin/stats")
	var stats map[string]any
	if err := json.Unmarshal([]byte(body), &stats); err != nil || resp.StatusCode != 200 {
		t.Fatalf("stats: %d %v", resp.StatusCode, err)
	}
	w := stats["workers"].(map[string]any)
	if w["size"].(float64) != 2 || w["queue_size"].(float64) != 3 {
		t.Errorf("stats workers = %v", w)
	}
	for _, k := range []string{"busy", "queued", "rejected", "wait_seconds_total"} {
		if _, ok := w[k]; !ok {
			t.Errorf("stats workers lack %q", k)
		}
	}
	p := stats["db_pool"].(map[string]any)
	for _, k := range []string{"size", "in_use", "idle", "acquires", "acquire_wait_seconds_total", "opened_total"} {
		if _, ok := p[k]; !ok {
			t.Errorf("stats db_pool lacks %q", k)
		}
	}
	c := stats["commands"].(map[string]any)
	for _, k := range []string{"AllView", "OnceGetView", "EachGetView"} {
		if _, ok := c[k]; !ok {
			t.Errorf("stats commands lack %q", k)
		}
	}
}

func TestAdminToken(t *testing.T) {
	s := New(Options{Store: fake.New(1), AdminToken: "s3cret"})
	ts := httptest.NewServer(s.AdminHandler())
	defer ts.Close()
	for _, path := range []string{"/healthz", "/admin/stats", "/readyz"} {
		if resp, _ := get(t, ts.URL+path); resp.StatusCode != 401 {
			t.Errorf("%s without token: %d; want 401", path, resp.StatusCode)
		}
		if resp, _ := get(t, ts.URL+path, "Authorization", "Bearer s3cret"); resp.StatusCode == 401 {
			t.Errorf("%s with token: 401", path)
		}
	}
}

// TestPublicHasNoAdmin proves the public listener serves no admin path.
func TestPublicHasNoAdmin(t *testing.T) {
	_, _, ts := newTest(t, Options{})
	for _, path := range []string{"/admin/stats", "/admin/reset", "/healthz", "/readyz", "/debug/pprof/", "/metrics"} {
		resp, body := get(t, ts.URL+path)
		if resp.StatusCode != 404 {
			t.Errorf("public %s: %d; want 404", path, resp.StatusCode)
		}
		if strings.Contains(body, "workers") {
			t.Errorf("public %s leaks stats", path)
		}
	}
}
