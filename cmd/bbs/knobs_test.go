package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKnobsEndToEnd turns the worker limit and the pool of a running
// board through the admin listener, behind its token, and reads the new
// settings back from /admin/stats (knobs, workers, db_pool; config keeps
// what the board started with) and /metrics.
func TestKnobsEndToEnd(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bbs.db")
	s := start(t, "-dsn", db, "-seed-posts", "50", "-pool", "2", "-workers", "2", "-admin-token", "s3cret")
	postKnobs := func(q, token string) (int, string) {
		req, _ := http.NewRequest("POST", s.admin+"/admin/knobs?"+q, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := postKnobs("workers=5&pool=5", ""); code != 401 {
		t.Fatalf("POST /admin/knobs without the token: %d %s; want 401", code, body)
	}
	before := time.Now()
	code, body := postKnobs("workers=5&pool=5&queue_timeout=3s", "s3cret")
	var k struct {
		Workers, Pool, PoolMin int
		EffectiveAt            time.Time `json:"effective_at"`
	}
	if err := json.Unmarshal([]byte(body), &k); code != 200 || err != nil || k.Workers != 5 || k.Pool != 5 || k.EffectiveAt.Before(before) {
		t.Fatalf("POST /admin/knobs?workers=5&pool=5: %d %s; want 200, both 5, effective now", code, body)
	}
	if code, a := call(t, s.board, url.Values{"cmd": {"EachGetView"}}); code != 200 || len(a.Posts) != 30 {
		t.Errorf("EachGetView after the change: %d, %d posts", code, len(a.Posts))
	}

	req, _ := http.NewRequest("GET", s.admin+"/admin/stats", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	for path, want := range map[string]float64{
		"workers.size": 5, "workers.queue_timeout_seconds": 3, "db_pool.size": 5, "db_pool.min": 5, "db_pool.open": 5,
		"db_pool.opened_total": 5, "knobs.workers": 5, "knobs.pool": 5, "knobs.changes_total": 1, "config.workers": 2, "config.pool": 2,
	} {
		if got := num(st, path); got != want {
			t.Errorf("/admin/stats %s = %v; want %v", path, got, want)
		}
	}
	req, _ = http.NewRequest("GET", s.admin+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, line := range []string{"bbs_workers_limit 5", "bbs_db_pool_size 5", "bbs_knob_changes_total 1"} {
		if !strings.Contains(string(b), "\n"+line+"\n") {
			t.Errorf("/metrics lacks %q", line)
		}
	}
}
